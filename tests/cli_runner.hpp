// Runs the gridsolve command for the command-line tests: exit code and everything it
// printed (standard output and error together).
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace cli_testing {

struct CliOutcome {
  int code;
  std::string output;
};

// `shell_prefix` goes before the program on the shell's command line (a `cd DIR && `, an
// environment assignment).
inline CliOutcome run_cli(const std::string& args, const std::string& shell_prefix = "") {
  const std::string cmd = shell_prefix + std::string(GRIDSOLVE_CLI) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace cli_testing
