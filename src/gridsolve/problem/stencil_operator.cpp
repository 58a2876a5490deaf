// StencilOperator: views, device copies, and the norms every solver's stopping test reads.
#include "gridsolve/problem/stencil_operator.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "gridsolve/core/sum_of_squares.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device_link.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/exec/reduce_then.hpp"

namespace gridsolve {

template <class T>
StencilView<T> StencilOperator<T>::view() const {
  StencilView<T> v;
  v.dims = grid.dims;
  v.active = active;
  v.global_active = parts ? global_active : active;
  v.part = bool(parts);
  v.uniform = uniform;
  v.cp = cp, v.cw = cw, v.ce = ce, v.cs = cs, v.cn = cn, v.cb = cb, v.ct = ct;
  v.b_const = b_const;
  if (!uniform) {
    v.ap = ap.cview(), v.aw = aw.cview(), v.ae = ae.cview(), v.as = as.cview(), v.an = an.cview();
    if (grid.dims == 3) v.ab = ab.cview(), v.at = at.cview();
  }
  if (!rhs.empty()) v.rhs = rhs.cview();
  if (!mask.empty()) v.mask = mask.cview();
  v.periodic = periodic;
  v.find_shared_layout();
  return v;
}

template <class T>
GhostSides StencilOperator<T>::ghost_sides() const {
  GhostSides s;
  for (int a = 0; a < 3; ++a)
    if ((periodic >> a) & 1) s.face[2 * a] = s.face[2 * a + 1] = GhostRule::periodic;
  return s;
}

template <class T>
void StencilOperator<T>::exchange_ghosts(Field<T>& u) const {
  if (periodic || u.decomposition()) gridsolve::exchange_ghosts(u, ghost_sides());
}

template <class T>
void StencilOperator<T>::refresh_images(const Field<T>& u) const {
  if (periodic || u.decomposition())
    gridsolve::exchange_ghosts(const_cast<Field<T>&>(u), ghost_sides());
}

template <class T>
StencilView<T> StencilOperator<T>::view(const Field<T>* b) const {
  StencilView<T> v = view();
  if (b) {
    v.rhs = b->cview();
    v.find_shared_layout();
  }
  return v;
}

namespace {

// The bodies of the loops Krylov iterations spend their time in are functors: nvcc's
// extended lambdas reach the host through a function pointer the host compiler cannot
// inline, which slowed the CPU path of a CUDA build by up to half.
template <class T>
struct ApplyDotBody {
  StencilView<T> a;
  FieldView<const T> xv;
  FieldView<T> yv;
  GRIDSOLVE_HD double operator()(int i, int j, int k) const {
    if (!a.is_free(i, j, k)) {
      yv(i, j, k) = T(0);
      return 0.0;
    }
    const T ax = a.diag(i, j, k) * xv(i, j, k) - a.neighbours(xv, i, j, k);
    yv(i, j, k) = ax;
    return double(ax) * double(xv(i, j, k));
  }
};

template <class T>
struct FreeNormBody {
  StencilView<T> a;
  FieldView<const T> v;
  bool of_residual;
  GRIDSOLVE_HD SumOfSquares operator()(int i, int j, int k) const {
    if (!a.is_free(i, j, k)) return SumOfSquares{};
    return SumOfSquares::of(double(of_residual ? a.residual(v, i, j, k) : a.known_rhs(v, i, j, k)));
  }
};

// Constant coefficients, no mask: the residual's norm from StencilView::uniform_residual.
// With the general row's registers the reduction held 4 blocks an SM and read a 2047^2
// level at a third of the copy bandwidth on an H200 (46 us).
template <class T, bool Three>
struct UniformResidualNormBody {
  StencilView<T> a;
  FieldView<const T> v;
  GRIDSOLVE_HD SumOfSquares operator()(int i, int j, int k) const {
    return SumOfSquares::of(double(a.template uniform_residual<Three>(v, i, j, k)));
  }
};

}  // namespace

template <class T>
void StencilOperator<T>::apply(const Field<T>& x, Field<T>& y) const {
  refresh_images(x);
  const StencilView<T> a = view();
  const FieldView<const T> xv = x.cview();
  const FieldView<T> yv = y.view();
  for_each(device, active, [=] GRIDSOLVE_HD(int i, int j, int k) {
    yv(i, j, k) =
        a.is_free(i, j, k) ? a.diag(i, j, k) * xv(i, j, k) - a.neighbours(xv, i, j, k) : T(0);
  });
}

template <class T>
void StencilOperator<T>::apply_dot(const Field<T>& x, Field<T>& y, double* dot) const {
  refresh_images(x);
  const StencilView<T> a = view();
  const FieldView<const T> xv = x.cview();
  const FieldView<T> yv = y.view();
  reduce_into<double>(device, active, ApplyDotBody<T>{a, xv, yv}, SumOp{}, 0.0, dot);
  // *dot is in the device's memory: on the GPU the sum over ranks is queued behind the
  // reduction, and the host need not wait for either.
  if (parts) sum_over_ranks(device, std::span<double>(dot, 1));
}

template <class T>
void StencilOperator<T>::diagonal(Field<T>& d) const {
  const StencilView<T> a = view();
  const FieldView<T> dv = d.view();
  for_each(device, active, [=] GRIDSOLVE_HD(int i, int j, int k) {
    dv(i, j, k) = a.is_free(i, j, k) ? a.diag(i, j, k) : T(1);
  });
}

template <class T>
StencilOperator<T> StencilOperator<T>::description() const {
  StencilOperator<T> o;
  o.grid = grid;
  o.device = device;
  o.active = active;
  o.uniform = uniform;
  o.cp = cp, o.cw = cw, o.ce = ce, o.cs = cs, o.cn = cn, o.cb = cb, o.ct = ct;
  o.b_const = b_const;
  o.unknowns = unknowns;
  o.jacobi_radius = jacobi_radius;
  o.sides = sides;
  o.k_constant = k_constant;
  o.has_cutouts = has_cutouts;
  o.has_fixed_regions = has_fixed_regions;
  o.singular = singular;
  o.rhs_mismatch = rhs_mismatch;
  o.periodic = periodic;
  o.parts = parts;
  o.rank = rank;
  o.global_active = global_active;
  return o;
}

template <class T>
StencilOperator<T> StencilOperator<T>::copy_to(Device d) const {
  StencilOperator<T> o = description();
  o.device = d;
  auto copy = [d](const auto& f) {
    using F = std::decay_t<decltype(f)>;
    return f.empty() ? F() : f.copy_to(d);
  };
  o.ap = copy(ap), o.aw = copy(aw), o.ae = copy(ae), o.as = copy(as), o.an = copy(an);
  o.ab = copy(ab), o.at = copy(at);
  o.rhs = copy(rhs);
  o.mask = copy(mask);
  return o;
}

template <class T>
std::string StencilOperator<T>::describe() const {
  return fmt::format("{}-point stencil, {} coefficients{}, {} unknowns", grid.dims == 3 ? 7 : 5,
                     uniform ? "uniform" : "per-node", mask.empty() ? "" : ", masked", unknowns);
}

namespace {

// ||b - A u|| (residual) or ||b + known neighbours|| (the unknowns' right-hand side)
// over the free nodes, accumulated in double whatever T is, and scaled so that finite
// data as large as 1e300 or as small as 1e-300 neither overflow nor vanish.
// sum(body) with the loop body of free_norm (the images u's norm reads refreshed first).
template <class T, class Sum>
auto with_free_norm_body(const StencilOperator<T>& op, const Field<T>& u, const Field<T>* b,
                         bool of_residual, Sum sum) {
  op.refresh_images(u);
  const StencilView<T> a = op.view(b);
  const FieldView<const T> v = u.cview();
  return !(of_residual && a.uniform && !a.mask) ? sum(FreeNormBody<T>{a, v, of_residual})
         : a.dims == 3                          ? sum(UniformResidualNormBody<T, true>{a, v})
                                                : sum(UniformResidualNormBody<T, false>{a, v});
}

template <class T>
double free_norm(const StencilOperator<T>& op, const Field<T>& u, const Field<T>* b,
                 bool of_residual) {
  const SumOfSquares s = with_free_norm_body(op, u, b, of_residual, [&](auto body) {
    return reduce<SumOfSquares>(op.device, op.active, body, SumOp{}, SumOfSquares{});
  });
  return (op.parts ? Communicator::world().sum_in_rank_order(s) : s).norm();
}

// Both norms of free_norm in one pass.
struct NormPair {
  SumOfSquares residual, rhs;
  GRIDSOLVE_HD NormPair operator+(const NormPair& o) const {
    return {residual + o.residual, rhs + o.rhs};
  }
};
template <class T>
struct BothNormsBody {
  StencilView<T> a;
  FieldView<const T> v;
  GRIDSOLVE_HD NormPair operator()(int i, int j, int k) const {
    if (!a.is_free(i, j, k)) return NormPair{};
    // The residual as residual_norm has it (UniformResidualNormBody on plain uniform rows).
    const T r = !(a.uniform && !a.mask) ? a.residual(v, i, j, k)
                : a.dims == 3           ? a.template uniform_residual<true>(v, i, j, k)
                                        : a.template uniform_residual<false>(v, i, j, k);
    return NormPair{SumOfSquares::of(double(r)), SumOfSquares::of(double(a.known_rhs(v, i, j, k)))};
  }
};

}  // namespace

template <class T>
std::array<double, 2> StencilOperator<T>::residual_and_rhs_norms(const Field<T>* b,
                                                                 const Field<T>& u) const {
  refresh_images(u);
  NormPair s = reduce<NormPair>(device, active, BothNormsBody<T>{view(b), u.cview()}, SumOp{},
                                NormPair{});
  if (parts) {
    const Communicator& world = Communicator::world();
    s = NormPair{world.sum_in_rank_order(s.residual), world.sum_in_rank_order(s.rhs)};
  }
  return {s.residual.norm(), s.rhs.norm()};
}

template <class T>
double StencilOperator<T>::residual_norm(const Field<T>* b, const Field<T>& u) const {
  return free_norm(*this, u, b, true);
}

template <class T>
void StencilOperator<T>::residual_squares_into(const Field<T>* b, const Field<T>& u,
                                               SumOfSquares* result) const {
  with_free_norm_body(*this, u, b, true, [&](auto body) {
    reduce_into<SumOfSquares>(device, active, body, SumOp{}, SumOfSquares{}, result);
    return 0;
  });
}

template <class T>
double StencilOperator<T>::rhs_norm(const Field<T>* b, const Field<T>& u) const {
  return free_norm(*this, u, b, false);
}

template <class T>
void StencilOperator<T>::residual(const Field<T>* b, const Field<T>& u, Field<T>& r) const {
  refresh_images(u);
  const StencilView<T> a = view(b);
  const FieldView<const T> v = u.cview();
  const FieldView<T> out = r.view();
  for_each(device, active, [=] GRIDSOLVE_HD(int i, int j, int k) {
    out(i, j, k) = a.is_free(i, j, k) ? a.residual(v, i, j, k) : T(0);
  });
}

template <class T>
void StencilOperator<T>::fix_constant(Field<T>& u) const {
  if (!singular) return;
  const StencilView<T> a = view();
  const FieldView<T> v = u.view();
  const double count = double(unknowns);
  // The mean stays where it is summed: no wait on the host after a solve.
  reduce_then<double>(
      device, active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        return a.is_free(i, j, k) ? double(v(i, j, k)) : 0.0;
      },
      parts != nullptr, active,
      [=] GRIDSOLVE_HD(int i, int j, int k, double sum) {
        if (a.is_free(i, j, k)) v(i, j, k) -= T(sum / count);
      });
  exchange_ghosts(u);
}

#define GRIDSOLVE_INSTANTIATE(T) template class StencilOperator<T>;
GRIDSOLVE_INSTANTIATE(float)
GRIDSOLVE_INSTANTIATE(double)

}  // namespace gridsolve
