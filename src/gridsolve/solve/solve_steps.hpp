// The steps every iterative solver takes before and after its iteration: the scale of
// the relative residual, and the report's closing figures.
#pragma once
#include <fmt/format.h>

#include <cmath>

#include "gridsolve/exec/memory.hpp"
#include "gridsolve/problem/linear_operator.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"
#include "gridsolve/solve/solve_options.hpp"

namespace gridsolve {

// ||b|| of the unknowns (kept in the report); 1 where it vanishes, so that the
// "relative" residual stays defined for an all-zero right-hand side.
template <class T>
double residual_scale(const LinearOperator<T>& op, const Field<T>* b, const Field<T>& u,
                      SolveReport& report) {
  report.rhs_norm = op.rhs_norm(b, u);
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

// Fixes the constant of singular problems, waits for the device (unless the last check
// just did), and records the true
// relative residual (not a recursively updated one) and the time. A solve reports
// "converged" under the residual rule only when that true residual meets the tolerance:
// a recursively updated residual (Krylov methods) can fall below it while the true one
// stays above, at the rounding floor of single precision. `measured`, when not negative,
// is the true relative residual the iteration's last check read from u as it stands
// (multigrid's cycles): it is kept instead of measured again. fix_constant's shift moves it
// by round-off only, since the rows of a singular operator sum to zero.
template <class T>
void finish_solve(const LinearOperator<T>& op, const Field<T>* b, Field<T>& u, double scale,
                  const ConvergenceMonitor& monitor, const SolveOptions& options,
                  SolveReport& report, double measured = -1) {
  op.fix_constant(u);
  // A measured residual means the host has just waited for the device at that check: the
  // shift queued since runs ahead of whatever waits next (the time leaves out its few
  // microseconds), so the host does not wait twice.
  if (measured < 0) synchronize(op.shape().device);
  report.relative_residual = measured >= 0 ? measured : op.residual_norm(b, u) / scale;
  report.seconds = monitor.seconds();
  if (report.converged && options.rule == StopRule::residual &&
      !(report.relative_residual < options.tolerance)) {
    report.converged = false;
    report.stop = StopReason::true_residual_above;
    report.reason = fmt::format(
        "not converged: the true relative residual is {:.3e}, above the tolerance {:.3e} "
        "(the iteration's own estimate fell below it; the tolerance is under this "
        "precision's rounding floor?)",
        report.relative_residual, options.tolerance);
  }
  confirm_finite_result(report);
}

}  // namespace gridsolve
