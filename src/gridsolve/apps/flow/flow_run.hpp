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
};

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
  StepReport last;
  std::vector<HistoryRow> history;
  std::vector<ForceSample> forces;
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
