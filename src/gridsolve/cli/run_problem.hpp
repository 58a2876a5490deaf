// Solving one problem from the command line: assemble, solve, summarize, write results.
#pragma once
#include <string>

#include "gridsolve/problem/problem_spec.hpp"
#include "gridsolve/solve/multigrid/multigrid_options.hpp"
#include "gridsolve/solve/solve_options.hpp"

namespace gridsolve::cli {

struct RunSettings {
  std::string command = "poisson";  // for the summary's title
  std::string solver = "sor";
  std::string device = "auto";
  std::string precision = "double";
  SolveOptions options;
  MultigridOptions multigrid;  // for mg and mgcg
  std::string out;             // results folder; empty writes nothing
  bool quiet = false;
};

// Returns the process exit code (0 converged, 3 not converged).
int run_problem(const ProblemSpec& spec, const RunSettings& settings);

}  // namespace gridsolve::cli
