// ConvergenceMonitor: the stopping logic every iterative solver shares.
#pragma once
#include <chrono>
#include <string>

#include "gridsolve/solve/solve_options.hpp"

namespace gridsolve {

// Watches one number per check (relative residual or max update) and decides when to
// stop: converged, iteration cap, NaN/Inf, divergence, or stagnation.
class ConvergenceMonitor {
 public:
  ConvergenceMonitor(const SolveOptions& options, SolveReport& report);

  // Returns true when the solve must stop; the report then says why.
  bool check(int iteration, double watched);
  // True when `iteration` is one at which the caller should measure and check.
  bool due(int iteration) const {
    return iteration % every_ == 0 || iteration >= options_.max_iterations;
  }
  int every() const { return every_; }
  void set_every(int every) { every_ = every > 0 ? every : 1; }
  // For Krylov methods, whose residual rises and falls on its way down (CG minimizes the
  // error's energy norm, not the residual, and can sit above an early dip for hundreds of
  // iterations on a large grid): stagnation then needs as many checks without a new best
  // as it took to reach that best, and never fewer than 200.
  void set_non_monotone() { non_monotone_ = true; }
  double seconds() const;

 private:
  const SolveOptions& options_;
  SolveReport& report_;
  int every_ = 1;
  std::chrono::steady_clock::time_point start_;
  double next_progress_ = 0;
  double first_ = -1;
  double best_ = 0;
  int checks_since_best_ = 0;
  int checks_ = 0;
  int best_at_ = 0;  // the check that found best_
  int growing_ = 0;
  bool non_monotone_ = false;
};

// Withdraws "converged" when the final true residual is NaN or infinite: the update rule
// and direct solves cannot see NaN by themselves. Every solve path calls it last.
void confirm_finite_result(SolveReport& report);

}  // namespace gridsolve
