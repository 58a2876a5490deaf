#include "gridsolve/solve/red_black_sor.hpp"

#include <cmath>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/exec/red_black_sweep.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"
#include "gridsolve/solve/solve_steps.hpp"
#if GRIDSOLVE_HAVE_CUDA
#include "gridsolve/solve/cuda/tuned_kernels.hpp"
#endif

namespace gridsolve {

double optimal_omega(double rho) {
  if (!(rho >= 0)) return 1.0;
  if (rho >= 1) return 2.0 - 1e-6;
  return 2.0 / (1.0 + std::sqrt(1.0 - rho * rho));
}

namespace {

// The SOR update of a free node (a fixed node keeps its value).
template <class T>
struct SorUpdate {
  StencilView<T> a;
  T omega;
  using Row = typename StencilView<T>::Row;
  GRIDSOLVE_HD Row row(int i, int j, int k) const { return a.row(i, j, k); }
  GRIDSOLVE_HD T operator()(const Row& r, const FieldView<const T>& v, int i, int j, int k) const {
    const T old = v(i, j, k);
    if (!r.free) return old;
    return old + omega * ((r.b + a.neighbours(r, v, i, j, k)) / r.diag - old);
  }
};

template <class T>
void half_sweep(const StencilOperator<T>& op, const Field<T>* b, Field<T>& u, int colour, T omega) {
  // The other colour's latest values: periodic images, and on several ranks the ghosts.
  op.exchange_ghosts(u);
  colour_update(op.device, op.active, colour, SorUpdate<T>{op.view(b), omega}, u.view());
}

template <class T>
double half_sweep_measuring(const StencilOperator<T>& op, const Field<T>* b, Field<T>& u,
                            int colour, T omega) {
  op.exchange_ghosts(u);
  const StencilView<T> a = op.view(b);
  const FieldView<T> v = u.view();
  const double largest = reduce<double>(
      op.device, op.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        if (((i + j + k) & 1) != colour || !a.is_free(i, j, k)) return 0.0;
        const T old = v(i, j, k);
        const T next =
            old + omega * ((a.b(i, j, k) + a.neighbours(v, i, j, k)) / a.diag(i, j, k) - old);
        v(i, j, k) = next;
        const double d = double(next) - double(old);
        return d < 0 ? -d : d;
      },
      MaxOp{}, 0.0);
  return op.parts ? Communicator::world().max(largest) : largest;  // every rank stops alike
}

}  // namespace

template <class T>
void red_black_iteration_generic(const StencilOperator<T>& op, Field<T>& u, T omega,
                                 const Field<T>* b) {
  half_sweep(op, b, u, 0, omega);
  half_sweep(op, b, u, 1, omega);
}

template <class T>
void red_black_iterations(const StencilOperator<T>& op, Field<T>& u, T omega, int count,
                          Field<T>& second, const Field<T>* b) {
  const bool pairs =
      count > 1 && red_black_sweep_fuses(op.device, op.grid.dims,
                                         op.periodic != 0 || op.parts != nullptr, sizeof(T));
  if (pairs && second.empty()) second = Field<T>(u.interior(), u.dims(), 1, u.ghost(), u.device());
  const SorUpdate<T> update{op.view(b), omega};
  for (int s = 0; s < count; ++s) {
    if (pairs && s + 1 < count) {
      red_black_sweep(op.device, op.active, 0, update, u.cview(), second.view());
      red_black_sweep(op.device, op.active, 0, update, second.cview(), u.view());
      ++s;
      continue;
    }
    red_black_iteration_generic(op, u, omega, b);
  }
}

template <class T>
SolveReport RedBlackSor<T>::run(const Field<T>* b, Field<T>& u, const SolveOptions& options) {
  const StencilOperator<T>& op = this->stencil();
  SolveReport report;
  report.solver = name();
  ConvergenceMonitor monitor(options, report);
  if (options.check_every == 0) monitor.set_every(options.rule == StopRule::update ? 10 : 20);
  const double omega_d =
      options.omega > 0 ? options.omega : (gauss_seidel_ ? 1.0 : optimal_omega(op.jacobi_radius));
  const T omega = T(omega_d);
  report.omega = omega_d;
  const double scale = residual_scale(op, b, u, report);

#if GRIDSOLVE_HAVE_CUDA
  // Iterates a tuned kernel between convergence checks.
  auto run_tuned = [&](auto& sor, auto&& measuring_iteration) {
    int it = 0;
    while (true) {
      const int next_check = ((it / monitor.every()) + 1) * monitor.every();
      const int stop_at = std::min(next_check, options.max_iterations);
      double update = 0;
      if (stop_at - it > 1) sor.iterate(omega, stop_at - it - 1);
      if (options.rule == StopRule::update)
        update = measuring_iteration();
      else
        sor.iterate(omega, 1);
      it = stop_at;
      report.last_update = update;
      const double watched =
          options.rule == StopRule::update ? update : sor.residual_norm() / scale;
      if (monitor.check(it, watched)) break;
    }
    sor.store(u);
    finish_solve(op, b, u, scale, monitor, options, report);
  };
  // 2D operators whose rows mostly repeat along y (uniform and axisymmetric ones among
  // them): several iterations a pass over memory, without streaming coefficients. Below
  // three quarters of the nodes on their column's row (a source term everywhere, say),
  // the stored rows cost more than the colour-reordered kernel's streams.
  // The tuned kernels copy the operator's own right-hand side; another b takes the
  // generic path.
  const bool tuned = options.tuned && b == nullptr && !op.parts;  // tuned: one rank
  if (tuned && options.rule == StopRule::residual && tuned::fused_sor_applies(op)) {
    tuned::FusedSor<T> sor(op, u);
    if (sor.coverage() >= 0.75) {
      report.kernel = "tuned (fused red-black, column rows)";
      run_tuned(sor, [] { return 0.0; });
      return report;
    }
  }
  if (tuned && tuned::coloured_sor_applies(op)) {
    report.kernel = "tuned (colour-reordered)";
    tuned::ColouredSor<T> sor(op, u);
    run_tuned(sor, [&] { return sor.iterate_measuring_update(omega); });
    return report;
  }
#endif
  report.kernel = "generic";
  for (int it = 1;; ++it) {
    const bool check = monitor.due(it);
    double update = 0;
    if (check && options.rule == StopRule::update) {
      // Two statements: the order in which function arguments are evaluated is
      // unspecified, and black before red would be another iteration.
      const double red = half_sweep_measuring(op, b, u, 0, omega);
      update = std::max(red, half_sweep_measuring(op, b, u, 1, omega));
    } else {
      red_black_iteration_generic(op, u, omega, b);
    }
    if (!check) continue;
    report.last_update = update;
    const double watched =
        options.rule == StopRule::update ? update : op.residual_norm(b, u) / scale;
    if (monitor.check(it, watched)) break;
  }
  finish_solve(op, b, u, scale, monitor, options, report);
  return report;
}

template class RedBlackSor<float>;
template class RedBlackSor<double>;
template void red_black_iteration_generic<float>(const StencilOperator<float>&, Field<float>&,
                                                 float, const Field<float>*);
template void red_black_iteration_generic<double>(const StencilOperator<double>&, Field<double>&,
                                                  double, const Field<double>*);
template void red_black_iterations<float>(const StencilOperator<float>&, Field<float>&, float, int,
                                          Field<float>&, const Field<float>*);
template void red_black_iterations<double>(const StencilOperator<double>&, Field<double>&, double,
                                           int, Field<double>&, const Field<double>*);

}  // namespace gridsolve
