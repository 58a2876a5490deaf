#include "gridsolve/solve/conjugate_gradient.hpp"

#include <cmath>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"
#include "gridsolve/solve/solve_steps.hpp"
#include "gridsolve/solve/multigrid/mixed_precision.hpp"

#include <type_traits>

namespace gridsolve {

template <class T>
void JacobiPreconditioner<T>::apply(const Field<T>& r, Field<T>& z) {
  const StencilView<T> a = op_.view();
  const FieldView<const T> rv = r.cview();
  const FieldView<T> zv = z.view();
  for_each(op_.device, a.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
    zv(i, j, k) = a.is_free(i, j, k) ? rv(i, j, k) / a.diag(i, j, k) : T(0);
  });
}

namespace {

// Two sums reduced in one pass.
struct Pair {
  double a = 0, b = 0;
  GRIDSOLVE_HD Pair operator+(const Pair& o) const { return Pair{a + o.a, b + o.b}; }
};

// Scalars of the iteration, in the memory of the device that runs it.
struct Scalars {
  double pw;      // p . A p
  Pair rz_rr;     // r . z and r . r after the update
  double rz_old;  // r . z of the previous iteration
};

}  // namespace

template <class T>
SolveReport ConjugateGradient<T>::solve(const StencilOperator<T>& op, Field<T>& u,
                                        const SolveOptions& options) {
  require(options.rule == StopRule::residual,
          "conjugate gradients stop on the relative residual; use --rule residual");
  SolveReport report;
  report.solver = name();
  ConvergenceMonitor monitor(options, report);
  if (options.check_every == 0) monitor.set_every(1);
  const Device d = op.device;
  const double scale = residual_scale(op, u, report);

  std::unique_ptr<Preconditioner<T>> pc;
  if (pc_ == CgPreconditioner::jacobi) pc = std::make_unique<JacobiPreconditioner<T>>(op);
  if (pc_ == CgPreconditioner::multigrid)
    pc = std::make_unique<MultigridPreconditioner<T>>(op, mg_);
  if (pc_ == CgPreconditioner::multigrid_float) {
    if constexpr (std::is_same_v<T, double>)
      pc = std::make_unique<MixedPrecisionMultigrid>(op, mg_);
    else
      pc = std::make_unique<MultigridPreconditioner<T>>(op, mg_);
  }
  report.kernel = pc ? "preconditioner: " + pc->name() : "unpreconditioned";

  const Grid& g = op.grid;
  Field<T> r(g, d), z(g, d), p(g, d), w(g, d);
  Buffer<Scalars> scalars(d, 1);
  Scalars* s = scalars.data();
  const StencilView<T> a = op.view();
  const Box box = op.active;

  residual(op, u, r);
  if (pc) pc->apply(r, z);
  const Field<T>& z0 = pc ? z : r;
  {
    const FieldView<const T> rv = r.cview(), zv = z0.cview();
    const FieldView<T> pv = p.view();
    for_each(d, box, [=] GRIDSOLVE_HD(int i, int j, int k) { pv(i, j, k) = zv(i, j, k); });
    reduce_into<Pair>(
        d, box,
        [=] GRIDSOLVE_HD(int i, int j, int k) {
          const double ri = double(rv(i, j, k));
          return Pair{ri * double(zv(i, j, k)), ri * ri};
        },
        SumOp{}, Pair{}, &s->rz_rr);
    single(d, [=] GRIDSOLVE_HD() { s->rz_old = s->rz_rr.a; });
  }

  const FieldView<T> uv = u.view(), rv = r.view(), pv = p.view(), wv = w.view();
  const FieldView<const T> pc_view = p.cview();
  for (int it = 1;; ++it) {
    // w = A p (p vanishes off the unknowns) and p . w in one pass.
    reduce_into<double>(
        d, box,
        [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
          if (!a.is_free(i, j, k)) {
            wv(i, j, k) = T(0);
            return 0.0;
          }
          const T ap = a.diag(i, j, k) * pc_view(i, j, k) - a.neighbours(pc_view, i, j, k);
          wv(i, j, k) = ap;
          return double(ap) * double(pc_view(i, j, k));
        },
        SumOp{}, 0.0, &s->pw);
    // u += alpha p, r -= alpha w; without a preconditioner r . r comes along.
    const bool plain = !pc;
    if (plain) {
      reduce_into<Pair>(
          d, box,
          [=] GRIDSOLVE_HD(int i, int j, int k) {
            const T alpha = s->pw != 0 ? T(s->rz_old / s->pw) : T(0);
            uv(i, j, k) += alpha * pv(i, j, k);
            const T ri = rv(i, j, k) - alpha * wv(i, j, k);
            rv(i, j, k) = ri;
            const double rd = double(ri);
            return Pair{rd * rd, rd * rd};
          },
          SumOp{}, Pair{}, &s->rz_rr);
    } else {
      for_each(d, box, [=] GRIDSOLVE_HD(int i, int j, int k) {
        const T alpha = s->pw != 0 ? T(s->rz_old / s->pw) : T(0);
        uv(i, j, k) += alpha * pv(i, j, k);
        rv(i, j, k) -= alpha * wv(i, j, k);
      });
      pc->apply(r, z);
      const FieldView<const T> zv = z.cview(), rc = r.cview();
      reduce_into<Pair>(
          d, box,
          [=] GRIDSOLVE_HD(int i, int j, int k) {
            const double ri = double(rc(i, j, k));
            return Pair{ri * double(zv(i, j, k)), ri * ri};
          },
          SumOp{}, Pair{}, &s->rz_rr);
    }
    if (monitor.due(it)) {
      Scalars host;
      copy_bytes(&host, Device::cpu, s, d, sizeof(Scalars));  // the one host round trip
      if (monitor.check(it, std::sqrt(std::max(host.rz_rr.b, 0.0)) / scale)) break;
    }
    // p = z + beta p, beta = (r.z)_new / (r.z)_old.
    const FieldView<const T> zv = plain ? r.cview() : z.cview();
    for_each(d, box, [=] GRIDSOLVE_HD(int i, int j, int k) {
      const T beta = s->rz_old != 0 ? T(s->rz_rr.a / s->rz_old) : T(0);
      pv(i, j, k) = zv(i, j, k) + beta * pv(i, j, k);
    });
    single(d, [=] GRIDSOLVE_HD() { s->rz_old = s->rz_rr.a; });
  }
  finish_solve(op, u, scale, monitor, report);
  if (pc_ == CgPreconditioner::multigrid || pc_ == CgPreconditioner::multigrid_float)
    report.convergence_factor = mean_reduction(report);
  return report;
}

template class JacobiPreconditioner<float>;
template class JacobiPreconditioner<double>;
template class ConjugateGradient<float>;
template class ConjugateGradient<double>;

}  // namespace gridsolve
