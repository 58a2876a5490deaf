// Solving one problem from the command line: assemble, solve, summarize, write results.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gridsolve/problem/problem_spec.hpp"
#include "gridsolve/solve/solve_options.hpp"
#include "gridsolve/solve/solve_settings.hpp"

namespace gridsolve::cli {

struct RunSettings {
  std::string command = "poisson";  // for the summary's title
  SolveSettings solve;              // what the user asked for
  SolveOptions options;             // what ran (resolved; read by the result files)
  std::string out;                  // results folder; empty writes nothing
  bool quiet = false;
  // Under mpirun: the process grid asked for ("PxQ" or "PxQxR"; empty chooses), and the
  // one that ran (set by run_problem, for the summary).
  std::string ranks_grid;
  std::string ranks_grid_used = "1x1";
  int ranks = 1;
  // Where each rank ran, rank after rank: "cpu", or "cuda:<GPU number on its machine>".
  std::vector<std::string> devices_used;
  std::string device_link;  // how device buffers travelled between ranks (empty: none)
  std::vector<std::int64_t> unknowns_per_rank;  // rank after rank
  nlohmann::json parameters;  // the application's parameters, for summary.json
};

// Returns the process exit code (0 converged, 3 not converged). Under mpirun with several
// ranks the solve runs on each rank's box (on its own GPU, or the CPU), and only rank 0
// prints and writes.
int run_problem(const ProblemSpec& spec, const RunSettings& settings);

}  // namespace gridsolve::cli
