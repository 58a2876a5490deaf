// Jacobi iteration (optionally weighted), convergence tested on the device every k sweeps.
#include "gridsolve/solve/jacobi.hpp"

#include <cmath>

#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"
#if GRIDSOLVE_HAVE_CUDA
#include "gridsolve/solve/cuda/tuned_kernels.hpp"
#endif

namespace gridsolve {

template <class T>
void jacobi_sweep_generic(const StencilOperator<T>& op, const Field<T>& in, Field<T>& out,
                          T weight) {
  const StencilView<T> a = op.view();
  const FieldView<const T> u = in.cview();
  const FieldView<T> v = out.view();
  if (a.uniform && !a.mask && !a.rhs && a.dims == 2) {
    // The common 2D case with every branch hoisted out of the loop body, so that the
    // CPU compiler vectorizes it.
    const T cx = a.cw * weight / a.cp, cy = a.cs * weight / a.cp, c0 = a.b_const * weight / a.cp;
    const T keep = T(1) - weight;
    for_each(op.device, op.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
      v(i, j, k) = keep * u(i, j, k) + c0 + cx * (u(i - 1, j, k) + u(i + 1, j, k)) +
                   cy * (u(i, j - 1, k) + u(i, j + 1, k));
    });
    return;
  }
  for_each(op.device, op.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
    const T old = u(i, j, k);
    v(i, j, k) = a.is_free(i, j, k)
                     ? old + weight * ((a.b(i, j, k) + a.neighbours(u, i, j, k)) / a.diag(i, j, k) - old)
                     : old;
  });
}

template <class T>
double jacobi_sweep_generic_measuring(const StencilOperator<T>& op, const Field<T>& in,
                                      Field<T>& out, T weight) {
  const StencilView<T> a = op.view();
  const FieldView<const T> u = in.cview();
  const FieldView<T> v = out.view();
  return reduce<double>(
      op.device, op.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const T old = u(i, j, k);
        if (!a.is_free(i, j, k)) {
          v(i, j, k) = old;
          return 0.0;
        }
        const T next = old + weight * ((a.b(i, j, k) + a.neighbours(u, i, j, k)) / a.diag(i, j, k) - old);
        v(i, j, k) = next;
        const double d = double(next) - double(old);
        return d < 0 ? -d : d;
      },
      MaxOp{}, 0.0);
}

template <class T>
SolveReport Jacobi<T>::solve(const StencilOperator<T>& op, Field<T>& u, const SolveOptions& options) {
  SolveReport report;
  report.solver = name();
  ConvergenceMonitor monitor(options, report);
  if (options.check_every == 0) monitor.set_every(options.rule == StopRule::update ? 10 : 20);
  const T w = T(options.weight);
  const double bnorm = rhs_norm(op, u);
  report.rhs_norm = bnorm;
  const double scale = bnorm > 0 ? bnorm : 1.0;

#if GRIDSOLVE_HAVE_CUDA
  const bool tuned = options.tuned && tuned::jacobi_applies(op);
#else
  const bool tuned = false;
#endif
  report.kernel = tuned ? "tuned" : "generic";
#if GRIDSOLVE_HAVE_CUDA
  double* device_max = nullptr;
  Buffer<double> max_buffer;
  if (tuned) {
    max_buffer = Buffer<double>(Device::cuda, 1);
    device_max = max_buffer.data();
  }
#endif

  Field<T> other = u.copy_to(u.device());  // fixed nodes and ghosts match in both
  Field<T>* cur = &u;
  Field<T>* next = &other;
  for (int it = 1;; ++it) {
    const bool check = monitor.due(it);
    const bool measure_update = check && options.rule == StopRule::update;
    double update = 0;
    if (tuned) {
#if GRIDSOLVE_HAVE_CUDA
      tuned::jacobi_sweep(op, *cur, *next, w, measure_update ? device_max : nullptr);
      if (measure_update) copy_bytes(&update, Device::cpu, device_max, Device::cuda, sizeof(double));
#endif
    } else if (measure_update) {
      update = jacobi_sweep_generic_measuring(op, *cur, *next, w);
    } else {
      jacobi_sweep_generic(op, *cur, *next, w);
    }
    std::swap(cur, next);
    if (!check) continue;
    report.last_update = update;
    const double watched =
        options.rule == StopRule::update ? update : residual_norm(op, *cur) / scale;
    if (monitor.check(it, watched)) break;
  }
  if (cur != &u) u.copy_from(*cur);
  fix_constant(op, u);
  synchronize(op.device);
  report.relative_residual = residual_norm(op, u) / scale;
  report.seconds = monitor.seconds();
  return report;
}

template class Jacobi<float>;
template class Jacobi<double>;
template void jacobi_sweep_generic<float>(const StencilOperator<float>&, const Field<float>&, Field<float>&, float);
template void jacobi_sweep_generic<double>(const StencilOperator<double>&, const Field<double>&, Field<double>&, double);

}  // namespace gridsolve
