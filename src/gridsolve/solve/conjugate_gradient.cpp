#include "gridsolve/solve/conjugate_gradient.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/device_link.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"
#include "gridsolve/solve/solve_steps.hpp"
#include "gridsolve/solve/multigrid/mixed_precision.hpp"

#include <type_traits>

namespace gridsolve {

template <class T>
JacobiPreconditioner<T>::JacobiPreconditioner(const LinearOperator<T>& op)
    : shape_(op.shape()), diagonal_(op.make_field()) {
  op.diagonal(diagonal_);
}

template <class T>
void JacobiPreconditioner<T>::apply(const Field<T>& r, Field<T>& z) {
  const FieldView<const T> rv = r.cview(), dv = diagonal_.cview();
  const FieldView<T> zv = z.view();
  // r vanishes off the unknowns and the diagonal is 1 there: z does too.
  for_each(shape_.device, shape_.unknowns,
           [=] GRIDSOLVE_HD(int i, int j, int k) { zv(i, j, k) = rv(i, j, k) / dv(i, j, k); });
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

// The bodies of the loops every iteration runs are functors: nvcc's extended lambdas reach
// the host through a function pointer the host compiler cannot inline, which slowed the
// CPU path of a CUDA build by up to half.

// (r . z, r . r), each factor scaled by sigma.
template <class T>
struct RzRrBody {
  FieldView<const T> rv, zv;
  double sigma;
  GRIDSOLVE_HD Pair operator()(int i, int j, int k) const {
    const double ri = double(rv(i, j, k)) * sigma;
    return Pair{ri * (double(zv(i, j, k)) * sigma), ri * ri};
  }
};

// u += alpha p, r -= alpha w (alpha / sigma: p and w = A p are sigma times their unscaled
// values).
template <class T>
struct StepBody {
  FieldView<T> uv, rv, pv, wv;
  const Scalars* s;
  double inv_sigma;
  GRIDSOLVE_HD void operator()(int i, int j, int k) const {
    const T alpha = s->pw != 0 ? T(s->rz_old / s->pw * inv_sigma) : T(0);
    uv(i, j, k) += alpha * pv(i, j, k);
    rv(i, j, k) -= alpha * wv(i, j, k);
  }
};

// p = sigma z + beta p, beta = (r.z)_new / (r.z)_old.
template <class T>
struct DirectionBody {
  FieldView<T> pv;
  FieldView<const T> zv;
  const Scalars* s;
  T sig;
  GRIDSOLVE_HD void operator()(int i, int j, int k) const {
    const T beta = s->rz_old != 0 ? T(s->rz_rr.a / s->rz_old) : T(0);
    pv(i, j, k) = sig * zv(i, j, k) + beta * pv(i, j, k);
  }
};

}  // namespace

template <class T>
struct ConjugateGradient<T>::Workspace {
  Box box;
  Field<T> r, z, p, w;
  Buffer<Scalars> scalars;
};

template <class T>
ConjugateGradient<T>::ConjugateGradient(CgPreconditioner pc, MultigridOptions mg)
    : kind_(pc), mg_(std::move(mg)) {}

template <class T>
ConjugateGradient<T>::~ConjugateGradient() = default;

template <class T>
std::string ConjugateGradient<T>::name() const {
  switch (kind_) {
    case CgPreconditioner::none:
      return "cg";
    case CgPreconditioner::jacobi:
      return "pcg";
    case CgPreconditioner::multigrid:
      return "mgcg";
    default:
      return "mgcg-mixed";
  }
}

template <class T>
void ConjugateGradient<T>::setup(const LinearOperator<T>& op) {
  this->op_ = &op;
  owned_.reset();
  if (kind_ == CgPreconditioner::jacobi) owned_ = std::make_unique<JacobiPreconditioner<T>>(op);
  if (kind_ == CgPreconditioner::multigrid)
    owned_ = std::make_unique<MultigridPreconditioner<T>>(this->stencil(), mg_);
  if (kind_ == CgPreconditioner::multigrid_float) {
    if constexpr (std::is_same_v<T, double>)
      owned_ = std::make_unique<MixedPrecisionMultigrid>(this->stencil(), mg_);
    else
      owned_ = std::make_unique<MultigridPreconditioner<T>>(this->stencil(), mg_);
  }
  setup(op, owned_.get());
}

template <class T>
void ConjugateGradient<T>::update(const LinearOperator<T>& op) {
  bool refreshed = false;
  const StencilOperator<T>* s = op.stencil();
  if (auto* mg = dynamic_cast<MultigridPreconditioner<T>*>(owned_.get());
      mg && s && mg->same_structure(*s)) {
    mg->update(*s);
    refreshed = true;
  }
  if constexpr (std::is_same_v<T, double>) {
    if (auto* mixed = dynamic_cast<MixedPrecisionMultigrid*>(owned_.get()); mixed && s)
      refreshed = mixed->update(*s);
  }
  if (!refreshed) return setup(op);
  this->op_ = &op;
  setup(op, owned_.get());
}

template <class T>
void ConjugateGradient<T>::setup(const LinearOperator<T>& op, Preconditioner<T>* preconditioner) {
  operator_ = &op;
  preconditioner_ = preconditioner;
  const OperatorShape s = op.shape();
  // The workspace stays while the shape does (update, or another operator of one grid).
  const Box field_box = s.parts ? s.parts->box(s.rank) : s.grid.box(s.unknowns.centring);
  if (!work_ || work_->box.lo != field_box.lo || work_->box.hi != field_box.hi ||
      work_->r.device() != s.device || work_->r.ncomp() != s.ncomp) {
    work_ = std::make_unique<Workspace>();
    work_->box = field_box;
    work_->r = op.make_field();
    work_->z = op.make_field();
    work_->p = op.make_field();
    work_->w = op.make_field();
    work_->scalars = Buffer<Scalars>(s.device, 1);
  }
}

template <class T>
SolveReport ConjugateGradient<T>::run(const Field<T>* b, Field<T>& u, const SolveOptions& options) {
  require(operator_ != nullptr, name() + ": solve before setup");
  require(options.rule == StopRule::residual,
          "conjugate gradients stop on the relative residual; use --rule residual");
  const LinearOperator<T>& op = *operator_;
  Preconditioner<T>* pc = preconditioner_;
  SolveReport report;
  report.solver = name();
  ConvergenceMonitor monitor(options, report);
  monitor.set_non_monotone();
  if (options.check_every == 0) monitor.set_every(1);
  const OperatorShape shape = op.shape();
  const Device d = shape.device;
  const Box box = shape.unknowns;
  const double scale = residual_scale(op, b, u, report);
  report.kernel = pc ? "preconditioner: " + pc->name() : "unpreconditioned";

  Field<T>&r = work_->r, &z = work_->z, &p = work_->p, &w = work_->w;
  Scalars* s = work_->scalars.data();
  const bool plain = !pc;
  // The dot products (r . z, r . r, p . A p) are taken on vectors scaled by sigma, a
  // power of two near 1 / ||b||: p is kept as sigma times the search direction, and r
  // and z enter the sums times sigma. Data as large as 1e300 then neither overflow the
  // sums nor lose the ratios alpha and beta; the scaling is exact, so the iterates are
  // those of the unscaled iteration.
  constexpr int max_shift = std::numeric_limits<T>::max_exponent - 4;
  const double sigma = std::ldexp(1.0, std::clamp(-std::ilogb(scale), -max_shift, max_shift));
  const double inv_sigma = 1.0 / sigma;
  const T sig = T(sigma);
  // On several ranks r . z and r . r are summed over all of them in one all-reduce (p . A p
  // is, inside apply_dot), in the memory of the device that runs the iteration.
  auto sum_rz_rr = [&] {
    if (shape.parts) sum_over_ranks(d, std::span<double>(&s->rz_rr.a, 2));
  };

  // r = b - A u, z = M^-1 r, p = z, and r . z, r . r: the start, and the restart after
  // the recursively updated residual has drifted from the true one.
  auto restart = [&] {
    op.residual(b, u, r);
    if (pc) pc->apply(r, z);
    const FieldView<const T> rv = r.cview(), zv = (plain ? r : z).cview();
    const FieldView<T> pv = p.view();
    for_each(d, box, [=] GRIDSOLVE_HD(int i, int j, int k) { pv(i, j, k) = sig * zv(i, j, k); });
    reduce_into<Pair>(d, box, RzRrBody<T>{rv, zv, sigma}, SumOp{}, Pair{}, &s->rz_rr);
    sum_rz_rr();
    single(d, [=] GRIDSOLVE_HD() { s->rz_old = s->rz_rr.a; });
  };
  restart();

  // At most this many restarts when the recursive residual says "converged" and the
  // true one disagrees; past them the report says so (finish_solve).
  int restarts_left = 2;
  const FieldView<T> uv = u.view(), rv = r.view(), pv = p.view(), wv = w.view();
  for (int it = 1;; ++it) {
    // w = A p and p . w in one pass.
    op.apply_dot(p, w, &s->pw);
    // u += alpha p, r -= alpha w; without a preconditioner r . r comes along.
    if (plain) {
      reduce_into<Pair>(
          d, box,
          [=] GRIDSOLVE_HD(int i, int j, int k) {
            // alpha / sigma: p and w = A p are sigma times their unscaled values.
            const T alpha = s->pw != 0 ? T(s->rz_old / s->pw * inv_sigma) : T(0);
            uv(i, j, k) += alpha * pv(i, j, k);
            const T ri = rv(i, j, k) - alpha * wv(i, j, k);
            rv(i, j, k) = ri;
            const double rd = double(ri) * sigma;
            return Pair{rd * rd, rd * rd};
          },
          SumOp{}, Pair{}, &s->rz_rr);
      sum_rz_rr();
    } else {
      for_each(d, box, StepBody<T>{uv, rv, pv, wv, s, inv_sigma});
      pc->apply(r, z);
      reduce_into<Pair>(d, box, RzRrBody<T>{r.cview(), z.cview(), sigma}, SumOp{}, Pair{},
                        &s->rz_rr);
      sum_rz_rr();
    }
    if (monitor.due(it)) {
      Scalars host;
      copy_bytes(&host, Device::cpu, s, d, sizeof(Scalars));  // the one host round trip
      const double estimate = std::sqrt(std::max(host.rz_rr.b, 0.0)) * inv_sigma / scale;
      if (estimate < options.tolerance && restarts_left > 0 && it < options.max_iterations) {
        // The recursion says converged: believe it only if the true residual agrees.
        const double measured = op.residual_norm(b, u) / scale;
        if (!(measured < options.tolerance)) {
          --restarts_left;
          restart();
          continue;
        }
      }
      if (monitor.check(it, estimate)) break;
    }
    // p = z + beta p, beta = (r.z)_new / (r.z)_old.
    const FieldView<const T> zv = plain ? r.cview() : z.cview();
    for_each(d, box, DirectionBody<T>{pv, zv, s, sig});
    single(d, [=] GRIDSOLVE_HD() { s->rz_old = s->rz_rr.a; });
  }
  finish_solve(op, b, u, scale, monitor, options, report);
  if (kind_ == CgPreconditioner::multigrid || kind_ == CgPreconditioner::multigrid_float)
    report.convergence_factor = mean_reduction(report);
  return report;
}

template class JacobiPreconditioner<float>;
template class JacobiPreconditioner<double>;
template class ConjugateGradient<float>;
template class ConjugateGradient<double>;

}  // namespace gridsolve
