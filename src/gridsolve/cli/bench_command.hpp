// gridsolve bench: kernel timings against the device's copy bandwidth and peer kernels.
#pragma once
#include <string>

namespace CLI {
class App;
}

namespace gridsolve::cli {

struct BenchSettings {
  std::string what = "stencil";
  int n = 8192;
  int repeats = 20;
  std::string device = "auto";
  std::string out;
  // bench mg
  int dims = 2;
  int unknowns = 1025;  // per side
  int rhs_count = 100;  // mg: right-hand sides solved with one set-up operator
  double tolerance = 1e-8;
  // bench micromag
  std::string mesh = "2048x2048x1";
  std::string peer;  // folder of a mumax3 build to run beside (bin/mumax3)
  // bench scaling (also --n: the strong-scaling grid, --dims)
  int per_rank = 0;  // weak scaling: nodes per side of one rank's share (0: 8191 / 511)
  std::string solver = "cg";
  int iterations = 100;
};

void add_bench_options(CLI::App* app, BenchSettings& s);
int bench_command(const BenchSettings& s);

}  // namespace gridsolve::cli
