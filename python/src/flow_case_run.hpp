// A flow case run from Python without files: a case file's text, the cavity or a DFG
// channel, with method settings by name; the run's summary, histories and final fields.
#pragma once
#include <array>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gridsolve {

struct FlowRequest {
  std::string kind = "cavity";  // file | cavity | channel
  std::string toml, source;     // file: the case's TOML text and where it came from
  double re = 100;              // cavity
  int n = 64;
  std::string which = "dfg-2d-1";  // channel
  int cells_per_diameter = 8;
  // [method] settings: numbers by their TOML keys (relax_u, t_end, cfl, ...), words for
  // coupling, convection, time, pressure_solver and momentum_solver.
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> words;
  std::string device;                // empty: the case file's, else auto
  int frames = 0;                    // transient runs: the fields kept this many times
  // Checkpoints (the command's --checkpoint-every, --checkpoint, --restart): every this many
  // steps and at the end to `checkpoint_file`; `restart` continues from one.
  int checkpoint_every = 0;
  std::string checkpoint_file, restart;
  long long stop_after = 0;         // stop after this many steps, with a checkpoint (0: to the end)
  std::function<void()> each_step;  // may throw to stop the run
};

struct FlowOutcome {
  std::string summary;  // summary.json's text
  int dims = 2;
  std::array<int, 3> cells{1, 1, 1};
  // history.csv's columns (step, time, dt, continuity, change, divergence, pressure
  // iterations) and the force coefficients (t, c_d, c_l), row after row.
  std::vector<double> history, forces;
  // The final cell-centred velocity components and pressure, x fastest.
  std::array<std::vector<double>, 3> u;
  std::vector<double> p;
  // The frames asked for: their times and the same fields at each.
  std::vector<double> frame_times;
  std::vector<std::array<std::vector<double>, 3>> frame_u;
  std::vector<std::vector<double>> frame_p;
};

FlowOutcome run_flow_case(const FlowRequest& r);

}  // namespace gridsolve
