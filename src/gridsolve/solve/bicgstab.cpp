#include "gridsolve/solve/bicgstab.hpp"

#include <cmath>
#include <span>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"

namespace gridsolve {

template <class T>
struct BiCgStab<T>::Workspace {
  // The iteration solves A e = r0 for the correction e (zero off the unknowns), so that
  // the known values u holds never enter apply.
  Field<T> r, rhat, p, v, s, t, phat, shat, e, dinv;
};

template <class T>
BiCgStab<T>::BiCgStab(bool jacobi) : jacobi_(jacobi) {}

template <class T>
BiCgStab<T>::~BiCgStab() = default;

template <class T>
void BiCgStab<T>::setup(const LinearOperator<T>& op) {
  const OperatorShape sh = op.shape();
  require(sh.ncomp == 1, "BiCGStab: one-component operators only");
  const LinearOperator<T>* before = this->op_;
  const bool same = before && work_ && before->shape().unknowns.lo == sh.unknowns.lo &&
                    before->shape().unknowns.hi == sh.unknowns.hi &&
                    before->shape().device == sh.device;
  this->op_ = &op;
  if (same) return;
  work_ = std::make_unique<Workspace>();
  for (Field<T>* f : {&work_->r, &work_->rhat, &work_->p, &work_->v, &work_->s, &work_->t,
                      &work_->phat, &work_->shat, &work_->e, &work_->dinv})
    *f = op.make_field();
}

namespace {

template <class T>
double dot(Device d, const Box& b, const Field<T>& x, const Field<T>& y) {
  const FieldView<const T> xv = x.cview(), yv = y.cview();
  return reduce<double>(
      d, b,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        return double(xv(i, j, k)) * double(yv(i, j, k));
      },
      SumOp{}, 0.0);
}

// out = x / d (the Jacobi preconditioner; d holds 1 / diag).
template <class T>
void scale(Device d, const Box& b, const Field<T>& dinv, const Field<T>& x, Field<T>& out) {
  const FieldView<const T> dv = dinv.cview(), xv = x.cview();
  const FieldView<T> ov = out.view();
  for_each(d, b,
           [=] GRIDSOLVE_HD(int i, int j, int k) { ov(i, j, k) = dv(i, j, k) * xv(i, j, k); });
}

}  // namespace

template <class T>
SolveReport BiCgStab<T>::run(const Field<T>* b, Field<T>& u, const SolveOptions& options) {
  require(options.rule == StopRule::residual,
          "BiCGStab stops on the relative residual; use --rule residual");
  const LinearOperator<T>& A = this->op();
  Workspace& w = *work_;
  const OperatorShape sh = A.shape();
  const Device d = sh.device;
  const Box box = sh.unknowns;
  SolveReport report;
  report.solver = jacobi_ ? "bicgstab (jacobi)" : "bicgstab";
  ConvergenceMonitor monitor(options, report);
  monitor.set_non_monotone();
  // On several ranks every dot product is summed over all of them (the pair t . t, t . s
  // in one all-reduce), so that every rank takes the same steps and stops alike.
  const Communicator& comm = Communicator::world();
  auto over_ranks = [&](double x) { return sh.parts ? comm.sum(x) : x; };
  const double bnorm = A.rhs_norm(b, u);
  const double scale_norm = bnorm > 0 ? bnorm : 1.0;
  report.rhs_norm = bnorm;
  // M^-1 = 1 / diag(A) at the unknowns, 1 elsewhere (every vector vanishes there anyway).
  A.diagonal(w.dinv);
  {
    const FieldView<T> dv = w.dinv.view();
    const bool j = jacobi_;
    for_each(d, box, [=] GRIDSOLVE_HD(int i, int jj, int k) {
      dv(i, jj, k) = j && dv(i, jj, k) != T(0) ? T(1) / dv(i, jj, k) : T(1);
    });
  }
  A.residual(b, u, w.r);
  w.e.set_zero();
  w.p.set_zero();
  w.v.set_zero();
  w.rhat.copy_from(w.r);
  double rho = 1, alpha = 1, omega = 1;
  double res = std::sqrt(over_ranks(dot(d, box, w.r, w.r))) / scale_norm;
  if (res <= options.tolerance) {
    report.converged = true;
    report.reason = "converged (the start met the tolerance)";
    report.relative_residual = res;
    return report;
  }
  const FieldView<T> r = w.r.view(), p = w.p.view(), v = w.v.view(), s = w.s.view(), t = w.t.view(),
                     e = w.e.view(), ph = w.phat.view(), sh2 = w.shat.view();
  for (int it = 1;; ++it) {
    double rho_new = over_ranks(dot(d, box, w.rhat, w.r));
    if (std::abs(rho_new) < 1e-300) {  // breakdown: restart the shadow residual
      w.rhat.copy_from(w.r);
      rho_new = over_ranks(dot(d, box, w.rhat, w.r));
    }
    const T beta = T((rho_new / rho) * (alpha / omega));
    const T om = T(omega);
    for_each(d, box, [=] GRIDSOLVE_HD(int i, int j, int k) {
      p(i, j, k) = r(i, j, k) + beta * (p(i, j, k) - om * v(i, j, k));
    });
    scale(d, box, w.dinv, w.p, w.phat);
    A.apply(w.phat, w.v);
    const double rv = over_ranks(dot(d, box, w.rhat, w.v));
    alpha = rv != 0 ? rho_new / rv : 0.0;
    const T al = T(alpha);
    for_each(d, box,
             [=] GRIDSOLVE_HD(int i, int j, int k) { s(i, j, k) = r(i, j, k) - al * v(i, j, k); });
    scale(d, box, w.dinv, w.s, w.shat);
    A.apply(w.shat, w.t);
    double tt_ts[2] = {dot(d, box, w.t, w.t), dot(d, box, w.t, w.s)};
    if (sh.parts) comm.sum(std::span<double>(tt_ts, 2));
    omega = tt_ts[0] > 0 ? tt_ts[1] / tt_ts[0] : 0.0;
    const T o = T(omega);
    for_each(d, box, [=] GRIDSOLVE_HD(int i, int j, int k) {
      e(i, j, k) += al * ph(i, j, k) + o * sh2(i, j, k);
      r(i, j, k) = s(i, j, k) - o * t(i, j, k);
    });
    rho = rho_new;
    ++report.iterations;
    res = std::sqrt(over_ranks(dot(d, box, w.r, w.r))) / scale_norm;
    if (monitor.check(it, res) || omega == 0.0) break;
  }
  // u += e at the unknowns, then the true residual decides.
  {
    const FieldView<T> uv = u.view();
    const FieldView<const T> ev = w.e.cview();
    for_each(d, box, [=] GRIDSOLVE_HD(int i, int j, int k) { uv(i, j, k) += ev(i, j, k); });
  }
  A.fix_constant(u);
  report.relative_residual = A.residual_norm(b, u) / scale_norm;
  report.converged = report.relative_residual <= options.tolerance * 1.0001;
  if (!report.converged && report.reason.rfind("converged", 0) == 0)
    report.reason = "the recursive residual met the tolerance, the true one did not";
  report.seconds = monitor.seconds();
  return report;
}

template class BiCgStab<float>;
template class BiCgStab<double>;

}  // namespace gridsolve
