#include "gridsolve/solve/multigrid/coarsening.hpp"

#include <cmath>
#include <span>
#include <type_traits>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/problem/problem_spec.hpp"
#include "gridsolve/solve/multigrid/transfer_bodies.hpp"

namespace gridsolve::multigrid {

Coarsening Coarsening::plan(const std::array<int, 3>& fine_nodes, int dims, int min_nodes,
                            std::uint8_t periodic) {
  Coarsening c;
  c.fine = fine_nodes;
  c.coarse = fine_nodes;
  for (int a = 0; a < dims; ++a) {
    c.wraps[a] = ((periodic >> a) & 1) != 0;
    if (c.wraps[a] && fine_nodes[a] - 1 < 4) continue;  // too short a period to halve
    if (fine_nodes[a] > min_nodes) {
      c.coarsened[a] = true;
      c.coarse[a] = fine_nodes[a] / 2 + 1;
    }
  }
  return c;
}

namespace {

// Fine-level reads in index space that may run past a periodic side: whether a node is an
// unknown is asked of the index folded into the active box (the unknown it is an image
// of); its values are read there on a whole level, and where the node lies on a rank's
// part (whose ghosts hold the images' values, two layers deep).
template <class T>
struct FineAccess {
  StencilView<T> v;
  std::array<int, 3> n;

  GRIDSOLVE_HD void fold(int& i, int& j, int& k) const {
    if (v.periodic) i = v.fold(0, i), j = v.fold(1, j), k = v.fold(2, k);
  }
  // Where node (i, j, k)'s values are read.
  GRIDSOLVE_HD void locate(int& i, int& j, int& k) const {
    if (!v.part) fold(i, j, k);
  }
  GRIDSOLVE_HD bool in_range(int i, int j, int k) const {
    fold(i, j, k);
    return i >= 0 && j >= 0 && k >= 0 && i < n[0] && j < n[1] && k < n[2];
  }
  // Every neighbour of (i, j, k) lies in the active box (across a periodic side too).
  GRIDSOLVE_HD bool strictly_inside(int i, int j, int k) const {
    const Box& b = v.global_active;
    auto inner = [&](int a, int q) { return v.wraps(a) || (q > b.lo[a] && q < b.hi[a]); };
    return inner(0, i) && inner(1, j) && (v.dims == 2 || inner(2, k));
  }
  GRIDSOLVE_HD bool free(int i, int j, int k) const {
    int fi = i, fj = j, fk = k;
    fold(fi, fj, fk);
    if (!in_range(fi, fj, fk) || !v.global_active.contains(fi, fj, fk)) return false;
    locate(i, j, k);
    return v.is_free(i, j, k);
  }
  // Coupling between fine node (i,j,k) and its + neighbour on `axis`, zero unless both
  // are unknowns.
  GRIDSOLVE_HD double conductance(int i, int j, int k, int axis) const {
    const int i2 = i + (axis == 0), j2 = j + (axis == 1), k2 = k + (axis == 2);
    if (!free(i, j, k) || !free(i2, j2, k2)) return 0.0;
    locate(i, j, k);
    return double(v.coefficient(2 * axis + 1, i, j, k));
  }
  // What the row of a free node loses to non-free neighbours and Robin terms.
  GRIDSOLVE_HD double sink(int i, int j, int k) const {
    if (!free(i, j, k)) return 0.0;
    locate(i, j, k);
    if (v.uniform && !v.mask && strictly_inside(i, j, k)) return 0.0;  // the common case
    double s = double(v.diag(i, j, k));
    const int di[6] = {-1, 1, 0, 0, 0, 0}, dj[6] = {0, 0, -1, 1, 0, 0}, dk[6] = {0, 0, 0, 0, -1, 1};
    const int faces = v.dims == 3 ? 6 : 4;
    for (int f = 0; f < faces; ++f)
      if (free(i + di[f], j + dj[f], k + dk[f])) s -= double(v.coefficient(f, i, j, k));
    return s > 0 ? s : 0.0;
  }
};

// Interpolation weight of coarse node I (on `axis`) at fine node (i, j, k). Between two
// coarse nodes the weights follow the fine node's own couplings along the axis (the
// flux-continuous, operator-dependent choice), so a coefficient jump or a short
// interval is interpolated as the operator sees it; the coarse operator's series
// couplings are the energy of exactly this interpolation along each line.
template <class T>
GRIDSOLVE_HD double axis_weight(const Maps& m, const FineAccess<T>& fa, int i, int j, int k,
                                int axis, int I) {
  const AxisMap& x = m.a[axis];
  const int q = axis == 0 ? i : axis == 1 ? j : k;
  const AxisMap::Side side = x.side_of(q, I);
  if (side == AxisMap::Side::own) return 1.0;
  if (side == AxisMap::Side::none) return 0.0;
  // Coarse levels fold couplings to fixed nodes into the diagonal, so a row next to a
  // fixed node does not show that coupling: take positions there instead.
  const int a0 = axis == 0, a1 = axis == 1, a2 = axis == 2;
  if (fa.free(i, j, k) && fa.free(i - a0, j - a1, k - a2) && fa.free(i + a0, j + a1, k + a2)) {
    int li = i, lj = j, lk = k;
    fa.locate(li, lj, lk);
    const double cl = double(fa.v.coefficient(2 * axis, li, lj, lk));
    const double cr = double(fa.v.coefficient(2 * axis + 1, li, lj, lk));
    if (cl + cr > 0) return side == AxisMap::Side::above ? cl / (cl + cr) : cr / (cl + cr);
  }
  return x.weight(q, I);
}

}  // namespace

template <class T>
InterpolationWeights<T> interpolation_weights(const StencilView<T>& fine, const Coarsening& c,
                                              const Grid& fine_grid, Device d,
                                              const LevelPlace& fine_place) {
  InterpolationWeights<T> w;
  interpolation_weights_into(fine, c, fine_grid, d, w, fine_place);
  return w;
}

template <class T>
void interpolation_weights_into(const StencilView<T>& fine, const Coarsening& c,
                                const Grid& fine_grid, Device d, InterpolationWeights<T>& w,
                                const LevelPlace& fine_place) {
  const bool on_parts = bool(fine_place.parts);
  w.on_parts = on_parts;
  if (fine.uniform) {  // positions give the weights
    for (Field<T>& f : w.lower) f = Field<T>();
    return;
  }
  const Maps m(c);
  const FineAccess<T> fa{fine, c.fine};
  // Periodic images and, on parts, the neighbours' weights in the ghosts.
  GhostSides sides;
  for (int a = 0; a < 3; ++a)
    if (c.wraps[a]) sides.face[2 * a] = sides.face[2 * a + 1] = GhostRule::periodic;
  for (int a = 0; a < 3; ++a) {
    if (a >= fine_grid.dims || !c.coarsened[a]) {
      w.lower[a] = Field<T>();
      continue;
    }
    if (on_parts) {
      w.lower[a] = Field<T>(fine_place.parts, fine_place.rank, 1, 1, d);
    } else {
      const Field<T>& kept = w.lower[a];
      const Box whole = fine_grid.nodes();
      const bool reuse = !kept.empty() && kept.device() == d && !kept.decomposition() &&
                         kept.interior().lo == whole.lo && kept.interior().hi == whole.hi;
      if (!reuse) w.lower[a] = Field<T>(fine_grid, d);
    }
    const FieldView<T> out = w.lower[a].view();
    const int axis = a;
    for_each(d, w.lower[a].interior(), [=] GRIDSOLVE_HD(int i, int j, int k) {
      const int q = axis == 0 ? i : axis == 1 ? j : k;
      const AxisMap& x = m.a[axis];
      out(i, j, k) =
          x.aligned(q) ? T(1) : T(axis_weight(m, fa, i, j, k, axis, x.coarse_of_aligned(q - 1)));
    });
    if (on_parts) exchange_ghosts(w.lower[a], sides);
  }
}

template <class T>
StencilOperator<T> coarsen_operator(const StencilView<T>& fine, const Coarsening& c,
                                    const InterpolationWeights<T>& weights, const Grid& fine_grid,
                                    Device d, const LevelPlace& place) {
  StencilOperator<T> op;
  coarsen_operator_into(fine, c, weights, fine_grid, d, op, place);
  return op;
}

// The coarse operator at one coarse node (Galerkin-like by conductances: series along a
// coarse edge, parallel over the transverse fine lines; the fine sinks lumped). A functor
// for the reason given at RestrictBody (transfer_bodies.hpp).
template <class T>
struct CoarsenBody {
  Maps m;
  Transfer<T> tr;
  FineAccess<T> fa;
  StencilView<T> fine;
  std::array<int, 3> nc, nfine;
  FieldView<T> nb[6];
  FieldView<T> ap;
  FieldView<std::uint8_t> mask;
  int dims;

  GRIDSOLVE_HD void operator()(int I, int J, int K) const {
    const int C[3] = {I, J, K};
    const int F[3] = {m.a[0].fine_of(I), m.a[1].fine_of(J), m.a[2].fine_of(K)};
    const std::uint8_t kind = fine.global_active.contains(F[0], F[1], F[2])
                                  ? (fine.mask ? fine.mask(F[0], F[1], F[2]) : std::uint8_t(0))
                                  : std::uint8_t(1);  // outside the fine active box: fixed
    for (int f = 0; f < 2 * dims; ++f) nb[f](I, J, K) = T(0);
    ap(I, J, K) = T(0);
    if (kind != 0) {
      mask(I, J, K) = kind;
      return;
    }
    if (fine.uniform && !fine.mask) {
      // Away from the sides of a constant-coefficient level the series / parallel sums
      // below have a closed form: a coarse edge is two fine edges in series (half the
      // coupling) and, per coarsened transverse axis, lines weighted 1/2, 1, 1/2 (twice).
      bool regular = true;
      for (int a = 0; a < dims; ++a)
        regular = regular &&
                  (!m.a[a].on || (m.a[a].wraps && (nfine[a] - 1) % 2 == 0) ||
                   (F[a] - 2 > fine.global_active.lo[a] && F[a] + 2 < fine.global_active.hi[a]));
      if (regular) {
        const double coef[3] = {double(fine.cw), double(fine.cs), double(fine.cb)};
        double diag_r = 0;
        for (int f = 0; f < 2 * dims; ++f) {
          const int axis = f / 2;
          double couple = coef[axis] * (m.a[axis].on ? 0.5 : 1.0);
          for (int b = 0; b < dims; ++b)
            if (b != axis && m.a[b].on) couple *= 2.0;
          nb[f](I, J, K) = T(couple);
          diag_r += couple;
        }
        ap(I, J, K) = T(diag_r);
        mask(I, J, K) = 0;
        return;
      }
    }
    double diag = 0;
    for (int f = 0; f < 2 * dims; ++f) {
      const int axis = f / 2, s = (f % 2) ? 1 : -1;
      int from[3] = {C[0], C[1], C[2]};
      if (s < 0) from[axis] -= 1;  // the edge from the lower coarse node
      int lo, hi;
      if (from[axis] < 0 && m.a[axis].wraps) {
        // On a periodic axis the edge below coarse node 0 comes from the image of the last
        // coarse unknown, below fine node 0 (one or two fine intervals long): read there,
        // where a rank's part holds it in its ghosts (a whole level folds the indices).
        lo = m.a[axis].fine_of(nc[axis] - 2) - (nfine[axis] - 1);
        hi = 0;
      } else {
        if (from[axis] < 0 || from[axis] + 1 >= nc[axis]) continue;
        lo = m.a[axis].fine_of(from[axis]);
        hi = m.a[axis].fine_of(from[axis] + 1);
      }
      // Parallel over the transverse fine lines, series along the coarse edge.
      const int b1 = (axis + 1) % 3, b2 = (axis + 2) % 3;
      double sum = 0;
      for (int t2 = -1; t2 <= 1; ++t2) {
        if ((b2 >= dims || !m.a[b2].on) && t2 != 0) continue;
        for (int t1 = -1; t1 <= 1; ++t1) {
          if ((b1 >= dims || !m.a[b1].on) && t1 != 0) continue;
          int p[3] = {F[0], F[1], F[2]};
          p[b1] += t1;
          p[b2] += t2;
          if (!fa.in_range(p[0], p[1], p[2])) continue;
          const double w =
              tr.weight(b1, p[0], p[1], p[2], C[b1]) * tr.weight(b2, p[0], p[1], p[2], C[b2]);
          if (w == 0.0) continue;
          double inv = 0;
          bool open = true;
          for (int q = lo; q < hi; ++q) {
            p[axis] = q;
            const double g_edge = fa.conductance(p[0], p[1], p[2], axis);
            if (g_edge <= 0) {
              open = false;
              break;
            }
            inv += 1.0 / g_edge;
          }
          if (open && inv > 0) sum += w / inv;
        }
      }
      nb[f](I, J, K) = T(sum);
      diag += sum;
    }
    // Lump the fine sinks in the coarse node's interpolation support.
    double lumped = 0;
    const int r0 = m.a[0].on ? 1 : 0, r1 = m.a[1].on ? 1 : 0, r2 = (dims == 3 && m.a[2].on) ? 1 : 0;
    for (int dk = -r2; dk <= r2; ++dk)
      for (int dj = -r1; dj <= r1; ++dj)
        for (int di = -r0; di <= r0; ++di) {
          const int i = F[0] + di, j = F[1] + dj, k = F[2] + dk;
          if (!fa.in_range(i, j, k)) continue;
          const double w = tr.weight(i, j, k, I, J, K);
          if (w != 0.0) lumped += w * fa.sink(i, j, k);
        }
    diag += lumped;
    ap(I, J, K) = T(diag);
    mask(I, J, K) = diag > 0 ? std::uint8_t(0) : std::uint8_t(2);  // isolated: drop it
  }
};

namespace {

// What a level's rows look like: per coefficient (ap, aw, ae, as, an, ab, at) the least and
// largest over the free rows inside the sides, and how many nodes break the uniform
// layout (a node inside that is not free, a node on a non-periodic side that is not fixed).
struct RowSpread {
  double lo[7], hi[7];
  std::int64_t misplaced;
  GRIDSOLVE_HD RowSpread operator+(const RowSpread& o) const {
    RowSpread r;
    for (int c = 0; c < 7; ++c) {
      r.lo[c] = lo[c] < o.lo[c] ? lo[c] : o.lo[c];
      r.hi[c] = hi[c] > o.hi[c] ? hi[c] : o.hi[c];
    }
    r.misplaced = misplaced + o.misplaced;
    return r;
  }
  GRIDSOLVE_HD static RowSpread none() {
    RowSpread r;
    for (int c = 0; c < 7; ++c) r.lo[c] = 1e300, r.hi[c] = -1e300;
    r.misplaced = 0;
    return r;
  }
};

// A level whose free rows are all alike and whose sides are fixed (the coarse levels of a
// constant-coefficient problem on a box, coarsened from its uniform finest level) is held
// as the uniform rows' seven numbers: its sweeps, residuals and transfers then read no
// coefficient arrays and no mask, and the next coarsening takes its closed form. Rows that
// differ only by the rounding of the series / parallel sums near the sides (1e-12
// relative in double, 1e-5 in float) count as alike.
template <class T>
void hold_alike_rows_as_uniform(StencilOperator<T>& op) {
  if (op.uniform || op.singular) return;
  const int dims = op.grid.dims;
  Box inner = op.parts ? op.global_active : op.active;
  for (int a = 0; a < dims; ++a)
    if (!((op.periodic >> a) & 1)) inner.lo[a] += 1, inner.hi[a] -= 1;
  if (inner.empty()) return;
  const FieldView<const T> c[7] = {op.ap.cview(), op.aw.cview(), op.ae.cview(), op.as.cview(),
                                   op.an.cview(), op.ab.cview(), op.at.cview()};
  const FieldView<const std::uint8_t> mask = op.mask.cview();
  const int coefficients = 1 + 2 * dims;
  const std::uint8_t periodic = op.periodic;
  RowSpread spread = reduce<RowSpread>(
      op.device, op.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> RowSpread {
        RowSpread r = RowSpread::none();
        const std::uint8_t kind = mask(i, j, k);
        if (!inner.contains(i, j, k)) {
          r.misplaced = kind == std::uint8_t(NodeKind::fixed) ? 0 : 1;
          return r;
        }
        if (kind != 0) {
          r.misplaced = 1;
          return r;
        }
        r.lo[0] = r.hi[0] = double(c[0](i, j, k));
        // A coupling to a fixed node on a side is stored as 0 (its value is data): the
        // uniform rows keep it and read the node's value, which on a coarse level (a
        // correction) is always 0. Only couplings between free nodes are compared.
        for (int q = 1; q < coefficients; ++q) {
          const int axis = (q - 1) / 2, step = (q - 1) % 2 ? 1 : -1;
          int n[3] = {i, j, k};
          n[axis] += step;
          if (((periodic >> axis) & 1) || inner.contains(n[0], n[1], n[2]))
            r.lo[q] = r.hi[q] = double(c[q](i, j, k));
        }
        return r;
      },
      SumOp{}, RowSpread::none());
  if (op.parts) {  // the spread over every rank's part: one message
    double all[15];
    for (int q = 0; q < 7; ++q) all[q] = -spread.lo[q], all[7 + q] = spread.hi[q];
    all[14] = double(spread.misplaced);
    Communicator::world().max(std::span<double>(all, 15));
    for (int q = 0; q < 7; ++q) spread.lo[q] = -all[q], spread.hi[q] = all[7 + q];
    spread.misplaced = std::int64_t(all[14]);
  }
  if (spread.misplaced != 0) return;
  const double tolerance = sizeof(T) == 8 ? 1e-12 : 1e-5;
  for (int q = 0; q < coefficients; ++q)
    if (!(spread.hi[q] - spread.lo[q] <= tolerance * std::abs(spread.hi[q]))) return;  // NaN too
  T* numbers[7] = {&op.cp, &op.cw, &op.ce, &op.cs, &op.cn, &op.cb, &op.ct};
  for (int q = 0; q < 7; ++q) *numbers[q] = q < coefficients ? T(spread.hi[q]) : T(0);
  op.uniform = true;
  if (op.parts) {
    op.global_active = inner;
    op.active = inner.intersect(op.parts->box(op.rank));
  } else {
    op.active = inner;
  }
  for (Field<T>* f : {&op.ap, &op.aw, &op.ae, &op.as, &op.an, &op.ab, &op.at}) *f = Field<T>();
  op.mask = Field<std::uint8_t>();
}

}  // namespace

template <class T>
void coarsen_operator_into(const StencilView<T>& fine, const Coarsening& c,
                           const InterpolationWeights<T>& weights, const Grid& fine_grid, Device d,
                           StencilOperator<T>& op, const LevelPlace& place,
                           std::int64_t* unknowns) {
  op.grid = fine_grid;
  for (int a = 0; a < 3; ++a) {
    op.grid.n[a] = c.coarse[a];
    if (c.coarsened[a]) op.grid.spacing[a] *= 2;
  }
  op.device = d;
  op.uniform = false;
  Box active = op.grid.nodes();
  op.periodic = fine.periodic;  // the coarse grid keeps one period on each periodic axis
  for (int a = 0; a < 3; ++a)
    if (c.wraps[a]) active.hi[a] -= 1;
  const bool on_parts = bool(place.parts);
  op.parts = place.parts;
  op.rank = place.rank;
  op.global_active = on_parts ? active : Box{};
  op.active = on_parts ? active.intersect(place.parts->box(place.rank)) : active;
  const Grid& g = op.grid;
  const Box stored = on_parts ? place.parts->box(place.rank) : g.nodes();
  // Every value below is written for each active node, so kept fields need no clearing.
  auto field = [&](auto& f) {
    using F = std::decay_t<decltype(f)>;
    if (!f.empty() && f.device() == d && f.interior().lo == stored.lo &&
        f.interior().hi == stored.hi)
      return;
    f = on_parts ? F(place.parts, place.rank, 1, 1, d) : F(g, d);
  };
  field(op.ap), field(op.aw), field(op.ae), field(op.as), field(op.an);
  if (g.dims == 3) field(op.ab), field(op.at);
  field(op.rhs);
  field(op.mask);

  const Maps m(c);
  const Transfer<T> tr = transfer_of(c, weights);
  const FineAccess<T> fa{fine, c.fine};
  const int dims = g.dims;
  const FieldView<T> nb[6] = {op.aw.view(), op.ae.view(), op.as.view(),
                              op.an.view(), op.ab.view(), op.at.view()};
  const FieldView<T> ap = op.ap.view();
  const FieldView<std::uint8_t> mask = op.mask.view();

  for_each(d, op.active,
           CoarsenBody<T>{m,
                          tr,
                          fa,
                          fine,
                          c.coarse,
                          c.fine,
                          {nb[0], nb[1], nb[2], nb[3], nb[4], nb[5]},
                          ap,
                          mask,
                          dims});

  // Unknown count and structure flags, for reports.
  const FieldView<const std::uint8_t> mv = op.mask.cview();
  const auto free_node = [=] GRIDSOLVE_HD(int i, int j, int k) -> std::int64_t {
    return mv(i, j, k) == 0 ? 1 : 0;
  };
  if (unknowns) {
    require(!on_parts, "multigrid: a deferred count of unknowns is for one rank");
    reduce_into(d, op.active, free_node, SumOp{}, std::int64_t(0), unknowns);
  } else {
    op.unknowns = reduce<std::int64_t>(d, op.active, free_node, SumOp{}, std::int64_t(0));
  }
  if (on_parts) op.unknowns = std::int64_t(Communicator::world().sum(double(op.unknowns)));
  // Only below a uniform level: a level of per-node rows (variable k, masks, the flow's
  // pressure, refreshed every step) rarely coarsens to alike rows, and the test is a pass
  // over the level with a host synchronization.
  if (fine.uniform) hold_alike_rows_as_uniform(op);
  // A part's ghosts, as operator_part cuts them: the neighbours' marks (which neighbours
  // are unknowns) and rows, the images' across periodic sides.
  if (on_parts && !op.uniform) {
    const GhostSides sides = op.ghost_sides();
    for (Field<T>* f : {&op.ap, &op.aw, &op.ae, &op.as, &op.an, &op.ab, &op.at})
      if (!f->empty()) exchange_ghosts(*f, sides);
    exchange_ghosts(op.mask, sides);
  }
}

template <class T>
void restrict_residual_of(const StencilView<T>& fine, const Field<T>& u,
                          const InterpolationWeights<T>& weights, const StencilView<T>& coarse,
                          Field<T>& coarse_rhs, const Coarsening& c, Device d) {
  const Transfer<T> tr = transfer_of(c, weights);
  const bool positional = !tr.lower[0] && !tr.lower[1] && !tr.lower[2];
  auto run = [&](auto source) {
    source.a = fine;
    source.v = u.cview();
    constexpr int dims = decltype(source)::three ? 3 : 2;
    for_each(d, coarse.active,
             RestrictBody<T, dims, decltype(source)>{tr, source, coarse_rhs.view(), coarse, c.fine,
                                                     positional});
  };
  const bool uniform = fine.uniform && !fine.mask;
  if (fine.dims == 3) {
    if (uniform)
      run(ResidualSource<T, true, true>{});
    else
      run(ResidualSource<T, false, true>{});
  } else {
    if (uniform)
      run(ResidualSource<T, true, false>{});
    else
      run(ResidualSource<T, false, false>{});
  }
}

template <class T>
void restrict_residual(const Field<T>& r, const InterpolationWeights<T>& weights,
                       const StencilView<T>& coarse, Field<T>& coarse_rhs, const Coarsening& c,
                       Device d) {
  const Transfer<T> tr = transfer_of(c, weights);
  const bool positional = !tr.lower[0] && !tr.lower[1] && !tr.lower[2];
  if (coarse.dims == 3)
    for_each(d, coarse.active,
             RestrictBody<T, 3>{tr, r.cview(), coarse_rhs.view(), coarse, c.fine, positional});
  else  // 1D and 2D: the axes past the last are not coarsened
    for_each(d, coarse.active,
             RestrictBody<T, 2>{tr, r.cview(), coarse_rhs.view(), coarse, c.fine, positional});
}

template <class T>
void interpolate_add(const Field<T>& e, const InterpolationWeights<T>& weights,
                     const StencilView<T>& fine, Field<T>& u, const Coarsening& c, Device d) {
  const Transfer<T> tr = transfer_of(c, weights);
  if (fine.dims == 3)
    for_each(d, fine.active, InterpolateAddBody<T, 3>{tr, e.cview(), u.view(), fine});
  else
    for_each(d, fine.active, InterpolateAddBody<T, 2>{tr, e.cview(), u.view(), fine});
}

#define GRIDSOLVE_INSTANTIATE(T)                                                                   \
  template InterpolationWeights<T> interpolation_weights<T>(                                       \
      const StencilView<T>&, const Coarsening&, const Grid&, Device, const LevelPlace&);           \
  template void interpolation_weights_into<T>(const StencilView<T>&, const Coarsening&,            \
                                              const Grid&, Device, InterpolationWeights<T>&,       \
                                              const LevelPlace&);                                  \
  template StencilOperator<T> coarsen_operator<T>(const StencilView<T>&, const Coarsening&,        \
                                                  const InterpolationWeights<T>&, const Grid&,     \
                                                  Device, const LevelPlace&);                      \
  template void coarsen_operator_into<T>(const StencilView<T>&, const Coarsening&,                 \
                                         const InterpolationWeights<T>&, const Grid&, Device,      \
                                         StencilOperator<T>&, const LevelPlace&, std::int64_t*);   \
  template void restrict_residual<T>(const Field<T>&, const InterpolationWeights<T>&,              \
                                     const StencilView<T>&, Field<T>&, const Coarsening&, Device); \
  template void restrict_residual_of<T>(const StencilView<T>&, const Field<T>&,                    \
                                        const InterpolationWeights<T>&, const StencilView<T>&,     \
                                        Field<T>&, const Coarsening&, Device);                     \
  template void interpolate_add<T>(const Field<T>&, const InterpolationWeights<T>&,                \
                                   const StencilView<T>&, Field<T>&, const Coarsening&, Device);
GRIDSOLVE_INSTANTIATE(float)
GRIDSOLVE_INSTANTIATE(double)

}  // namespace gridsolve::multigrid
