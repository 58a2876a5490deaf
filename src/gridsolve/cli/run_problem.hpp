// Solving one problem from the command line: assemble, solve, summarize, write results.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gridsolve/problem/problem_spec.hpp"
#include "gridsolve/solve/solve_options.hpp"
#include "gridsolve/solve/solve_on_ranks.hpp"
#include "gridsolve/solve/solve_settings.hpp"

namespace gridsolve::cli {

struct RunSettings {
  std::string command = "poisson";  // for the summary's title
  SolveSettings solve;              // what the user asked for
  SolveOptions options;             // what ran (resolved; read by the result files)
  std::string out;                  // results folder; empty writes nothing
  bool quiet = false;
  // Under mpirun: the process grid asked for ("PxQ" or "PxQxR"; empty chooses), and where
  // the solve ran (set by run_problem, for the summary).
  std::string ranks_grid;
  RanksUsed used;
  nlohmann::json parameters;  // the application's parameters, for summary.json
};

// Returns the process exit code (0 converged, 3 not converged). Under mpirun with several
// ranks the solve runs on each rank's box (on its own GPU, or the CPU), and only rank 0
// prints and writes.
int run_problem(const ProblemSpec& spec, const RunSettings& settings);

}  // namespace gridsolve::cli
