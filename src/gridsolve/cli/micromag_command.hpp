// The micromag command: `gridsolve micromag CONFIG.toml` runs a micromagnetic problem.
#pragma once
#include <string>

namespace CLI {
class App;
}

namespace gridsolve::cli {

struct MicromagArguments {
  std::string config, device, precision, out;
  bool quiet = false;
};

CLI::App* add_micromag_command(CLI::App& app, MicromagArguments& args);
int micromag_command(const MicromagArguments& args);

}  // namespace gridsolve::cli
