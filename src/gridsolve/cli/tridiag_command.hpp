// gridsolve tridiag: solve tridiagonal systems read from a file (format: docs/tridiag.md).
#pragma once
#include <string>

namespace CLI {
class App;
}

namespace gridsolve::cli {

struct TridiagSettings {
  std::string input;            // the systems
  std::string output;           // the solutions; empty: standard output
  std::string method = "auto";  // auto | thomas | cr | pcr | cr-pcr | partitioned
  std::string device = "cpu";
  std::string precision = "double";
  bool quiet = false;
};

CLI::App* add_tridiag_command(CLI::App& app, TridiagSettings& s);
int tridiag_command(const TridiagSettings& s);

}  // namespace gridsolve::cli
