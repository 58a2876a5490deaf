// Running a flow case to its end (steady convergence or the final time) with progress
// reports, measuring what its benchmark asks for, and writing the result files.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gridsolve/apps/flow/flow_case.hpp"
#include "gridsolve/apps/flow/flow_post.hpp"
#include "gridsolve/apps/flow/flow_solver.hpp"

namespace gridsolve::flow {

struct FlowRunOptions {
  std::string out;              // folder for the result files; empty writes none
  bool plots = true;            // PNG figures through gnuplot (when found)
  int frames = 10;              // transient: fields written this many times over the run
  double progress_after = 2.0;  // seconds before progress lines start
  std::function<void(const std::string&)> print;  // progress and notes; empty: silent
  // Checkpoints: every this many steps (or steady iterations), and at the end, the whole
  // state of the run goes to `checkpoint_file` (default OUT/checkpoint.gsflow), replaced
  // atomically; 0 writes none. `restart` names a checkpoint to continue from: the run
  // goes on as if it had never stopped (bit for bit on the same device), its histories
  // and frame series continuing those of the checkpoint.
  int checkpoint_every = 0;
  std::string checkpoint_file;
  std::string restart;
  // Stop after this many steps (or iterations) of this invocation, with a checkpoint, for
  // jobs under a wall-time limit; 0: run to the end. The result is then not converged.
  long long stop_after = 0;
  // Time the pressure solves (the device is synchronized around each, which costs a
  // little on small grids): the result then says what share of the run they took.
  bool profile = false;
  // Called after every step or iteration (may throw to stop the run: Ctrl-C in Python),
  // and with the final state's snapshot (for callers that keep it in memory).
  std::function<void()> each_step;
  std::function<void(const FlowSnapshot&)> final_state;
  // Called with each frame's state (`frames` of them over a transient run, at the times
  // FlowResult::frame_times lists), with or without files: for callers that keep them.
  std::function<void(const FlowSnapshot&)> on_frame;
};

// Where checkpoints of a run with these options go; throws Error when they are asked
// for without a place (no checkpoint_file and no out).
std::string checkpoint_path(const FlowRunOptions& o);

struct ForceSample {
  double t = 0, c_d = 0, c_l = 0;
};

struct HistoryRow {
  long long step = 0;
  double time = 0, dt = 0, continuity = 0, change = 0, divergence = 0;
  int pressure_iterations = 0;
};

struct FlowResult {
  FlowCase flow_case;
  std::string device;
  bool converged = false;  // steady: met its tolerance; transient: reached t_end
  std::string reason;
  long long iterations = 0;  // outer iterations or time steps
  double time = 0;           // simulated time reached
  double seconds = 0;        // wall time of the iteration loop
  // The mean multigrid cycles (or iterations) per pressure solve, and with `profile` the
  // share of the loop's wall time spent in those solves (else negative): where a run's
  // time goes.
  double pressure_cycles_per_solve = 0, pressure_share = -1;
  // The same for the momentum predictors: red-black sweeps (or iterations) a component's
  // predictor took, and with `profile` their share of the loop's wall time (else negative).
  double sweeps_per_predictor = 0, predictor_share = -1;
  // On GPUs: the most device memory the run held on any one rank (its fields, operators,
  // solver levels and scratch; 0 on the CPU), what sizes a larger run.
  double gpu_peak_bytes = 0;
  StepReport last;
  std::vector<HistoryRow> history;
  std::vector<ForceSample> forces;
  std::vector<double> frame_times;  // the simulated time of each frame of the series
  long long restarted_from = -1;    // the step or iteration of the checkpoint, if any
  double c_d = 0, c_l = 0, dp = 0, strouhal = 0, c_d_max = 0, c_l_max = 0;
  bool has_forces = false, has_dp = false;
  VortexCentre vortex;
  bool has_vortex = false;
  std::vector<CentrelinePoint> ghia;
  std::vector<std::string> files;
  nlohmann::json summary;
};

// Runs `c` on device d. Throws Error for bad input or a diverged run.
FlowResult run_flow(const FlowCase& c, Device d, const FlowRunOptions& o);

// The one-screen text summary of a result.
std::string describe(const FlowResult& r);

}  // namespace gridsolve::flow
