// gridsolve: the command line front end.
#include "gridsolve/cli/commands.hpp"

int main(int argc, char** argv) {
  return gridsolve::cli::run(argc, argv);
}
