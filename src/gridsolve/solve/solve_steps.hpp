// The steps every iterative solver takes before and after its iteration: the scale of
// the relative residual, and the report's closing figures.
#pragma once
#include <cmath>

#include "gridsolve/exec/memory.hpp"
#include "gridsolve/problem/stencil_operator.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"
#include "gridsolve/solve/solve_options.hpp"

namespace gridsolve {

// ||b|| of the unknowns (kept in the report); 1 where it vanishes, so that the
// "relative" residual stays defined for an all-zero right-hand side.
template <class T>
double residual_scale(const StencilOperator<T>& op, const Field<T>& u, SolveReport& report) {
  report.rhs_norm = rhs_norm(op, u);
  return report.rhs_norm > 0 ? report.rhs_norm : 1.0;
}

// Geometric mean of the watched value's reduction per iteration between the first and
// the last check (the first check also absorbs the start-up transient).
inline double mean_reduction(const SolveReport& report) {
  if (report.history.size() < 2) return 0;
  const double first = report.history.front().second, last = report.history.back().second;
  const int span = report.history.back().first - report.history.front().first;
  return span > 0 && first > 0 && last > 0 ? std::pow(last / first, 1.0 / span) : 0;
}

// Fixes the constant of singular problems, waits for the device, and records the true
// relative residual (not a recursively updated one) and the time.
template <class T>
void finish_solve(const StencilOperator<T>& op, Field<T>& u, double scale,
                  const ConvergenceMonitor& monitor, SolveReport& report) {
  fix_constant(op, u);
  synchronize(op.device);
  report.relative_residual = residual_norm(op, u) / scale;
  report.seconds = monitor.seconds();
  confirm_finite_result(report);
}

}  // namespace gridsolve
