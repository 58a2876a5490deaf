// The flow commands: `gridsolve cavity`, `gridsolve channel --case dfg-2d-N` and
// `gridsolve flow CONFIG.toml` (incompressible Navier-Stokes, docs/flow.md).
#pragma once
#include <string>

namespace CLI {
class App;
}

namespace gridsolve::cli {

struct FlowArguments {
  CLI::App* cavity = nullptr;
  CLI::App* channel = nullptr;
  CLI::App* flow = nullptr;
  double re = 100;
  int n = 128;
  std::string which;  // channel case
  int cells_per_diameter = 16;
  std::string config;
  std::string device = "auto", out, coupling, convection, time_scheme, spacing;
  // Applied only when given on the command line (the case's own values stand otherwise);
  // a given value is checked like one from a case file.
  double tol = 0, t_end = 0, cfl = 0, dt = 0, relax_u = 0, relax_p = 0, pressure_tol = 0;
  int max_iter = 0, frames = 10, sweeps = 0;
  int checkpoint_every = 0;
  std::string checkpoint_file, restart;
  long long stop_after = 0;
  bool quiet = false, no_plots = false, profile = false;
};

// Adds the three commands to `app`, bound to `args`.
void add_flow_commands(CLI::App& app, FlowArguments& args);
// True when one of them was given.
bool flow_requested(const FlowArguments& args);
// Runs it; returns the exit code (0 done, 3 not converged).
int flow_command(const FlowArguments& args);

struct BenchSettings;
// `gridsolve bench flow`: PISO step timings against the copy bandwidth, the steady cavity
// against icoFoam (run when installed, else its figure measured on this machine).
int flow_bench_command(const BenchSettings& s);

}  // namespace gridsolve::cli
