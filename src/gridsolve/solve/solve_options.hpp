// What a solve is asked to do (SolveOptions) and what it reports back (SolveReport).
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gridsolve {

// The floating-point type a solve runs in.
enum class Precision { fp64, fp32 };

// "double" (or fp64) and "float" (fp32, single); anything else throws Error listing them.
Precision parse_precision(std::string_view name);
// "double" or "float", as reports and summary.json spell them.
const char* to_string(Precision p);
template <class T>
constexpr Precision precision_of() {
  return sizeof(T) == 8 ? Precision::fp64 : Precision::fp32;
}

// Why a solve stopped.
enum class StopReason {
  none,                 // not stopped (yet)
  converged,            // the watched quantity met the tolerance (and the true residual is finite)
  direct,               // a direct solve: one pass, residual measured afterwards
  iteration_cap,        // max_iterations reached
  stagnation,           // no progress for many checks
  divergence,           // grew far beyond its start
  not_a_number,         // NaN or infinity appeared
  true_residual_above,  // the iteration's estimate met the tolerance, the true residual not
};
// converged, direct, iteration-cap, stagnation, divergence, not-a-number,
// true-residual-above-tolerance (summary.json).
const char* to_string(StopReason r);

enum class StopRule {
  residual,  // ||b - A u||_2 / ||b||_2 < tolerance (b: the unknowns' right-hand side)
  update,    // max |u_new - u_old| < tolerance (the heat-plate article's rule)
};

struct ProgressInfo {
  int iteration = 0;
  double value = 0;  // the quantity the stop rule watches
  double seconds = 0;
};

struct SolveOptions {
  StopRule rule = StopRule::residual;
  double tolerance = 1e-8;
  int max_iterations = 1000000;
  int check_every = 0;          // iterations between convergence checks; 0 picks per solver
  double omega = 0;             // SOR relaxation; 0 picks the optimum from the spectral radius
  double weight = 1;            // Jacobi damping (1: plain Jacobi)
  bool tuned = true;            // use hand-tuned device kernels where they apply
  double progress_after = 2.0;  // seconds before progress reports start
  // Direct solvers: measure the residual after the solve (two passes over the data and two
  // waits for the device). A caller that checks its result another way, every few solves
  // (a time loop measuring divergence), may turn it off; the report's relative_residual is
  // then -1 (not measured) and the solve returns without waiting for the device.
  bool verify = true;
  std::function<void(const ProgressInfo&)> on_progress;

  void validate() const;
};

struct SolveReport {
  std::string solver;
  std::string kernel;  // which implementation ran ("generic", "tuned", ...)
  bool converged = false;
  StopReason stop = StopReason::none;
  std::string reason;  // why the solve stopped, in words
  int iterations = 0;
  double relative_residual = 0;  // at the end, always measured
  double last_update = 0;        // max |update| at the last check (update rule)
  double seconds = 0;        // the iteration (or the direct solve)
  double setup_seconds = 0;  // building the solver for the operator (a multigrid hierarchy)
  double omega = 0;
  double rhs_norm = 0;
  // (iteration, watched value) at each check.
  std::vector<std::pair<int, double>> history;
  // Multigrid and multigrid-preconditioned CG: residual reduction per cycle, the
  // geometric mean after the first cycle, and each cycle's own factor.
  double convergence_factor = 0;
  std::vector<double> cycle_factors;
  // What the solve path changed or noticed on the way (a source projected to make an
  // all-Neumann problem solvable, ...), for the printed summary and summary.json.
  std::vector<std::string> notes;
};

}  // namespace gridsolve
