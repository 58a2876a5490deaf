#include "gridsolve/solve/gauss_seidel.hpp"

#include <cmath>

#include "gridsolve/core/error.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"
#include "gridsolve/solve/solve_steps.hpp"

namespace gridsolve {

template <class T>
SolveReport GaussSeidel<T>::run(const Field<T>* rhs, Field<T>& u, const SolveOptions& options) {
  const StencilOperator<T>& op = this->stencil();
  require(op.device == Device::cpu,
          "gauss-seidel is the sequential CPU reference; use --solver sor (red-black) on cuda");
  SolveReport report;
  report.solver = name();
  report.kernel = "sequential";
  ConvergenceMonitor monitor(options, report);
  if (options.check_every == 0) monitor.set_every(options.rule == StopRule::update ? 1 : 10);
  // Lexicographic order has no cheap optimum; omega defaults to plain Gauss-Seidel.
  const T omega = T(options.omega > 0 ? options.omega : 1.0);
  report.omega = double(omega);
  const double scale = residual_scale(op, rhs, u, report);
  const StencilView<T> a = op.view(rhs);
  const FieldView<T> v = u.view();
  const Box& b = op.active;
  for (int it = 1;; ++it) {
    double update = 0;
    op.exchange_ghosts(u);  // periodic images: the wrapped neighbours lag one sweep
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
          if (!a.is_free(i, j, k)) continue;
          const T old = v(i, j, k);
          const T gs = (a.b(i, j, k) + a.neighbours(v, i, j, k)) / a.diag(i, j, k);
          const T next = old + omega * (gs - old);
          v(i, j, k) = next;
          const double change = std::abs(double(next) - double(old));
          // A NaN update must reach the monitor, which std::max would drop.
          if (!(change <= update)) update = change;
        }
    if (!monitor.due(it)) continue;
    report.last_update = update;
    const double watched =
        options.rule == StopRule::update ? update : op.residual_norm(rhs, u) / scale;
    if (monitor.check(it, watched)) break;
  }
  finish_solve(op, rhs, u, scale, monitor, options, report);
  return report;
}

template class GaussSeidel<float>;
template class GaussSeidel<double>;

}  // namespace gridsolve
