// The loop bodies of the transfers between multigrid levels (restriction of a residual,
// interpolation of a correction) and the index maps they read: launched over a level by
// coarsening.cpp, and run level after level inside one block by block_cycle.cpp.
#pragma once
#include <array>

#include "gridsolve/core/field_view.hpp"
#include "gridsolve/core/hd.hpp"
#include "gridsolve/problem/stencil_view.hpp"
#include "gridsolve/solve/multigrid/coarsening.hpp"

namespace gridsolve::multigrid {
// Index arithmetic of one axis, usable in loop bodies.
struct AxisMap {
  int nf = 1, nc = 1;
  bool on = false;
  const double* x = nullptr;   // fine node positions
  const double* wl = nullptr;  // weight of the lower coarse node at each fine node, from x
  bool wraps = false;          // periodic with period nf - 1: indices fold into 0 .. nf - 2

  GRIDSOLVE_HD int fold(int i) const {
    if (!wraps) return i;
    const int period = nf - 1, r = i % period;
    return r < 0 ? r + period : r;
  }

  GRIDSOLVE_HD int fine_of(int I) const {
    if (!on) return I;
    const int f = 2 * I;
    return f < nf - 1 ? f : nf - 1;
  }
  // On a periodic axis an index past the side is aligned when the node it images is (an
  // odd period leaves its last coarse interval one fine interval long).
  GRIDSOLVE_HD bool aligned(int i) const {
    i = fold(i);
    return !on || (i % 2 == 0) || i == nf - 1;
  }
  GRIDSOLVE_HD int coarse_of_aligned(int i) const {
    return !on ? i : (i == nf - 1 ? nc - 1 : i / 2);
  }
  // Where fine node i lies from coarse node I, which every kind of interpolation weight
  // asks first: `own` (I's own node, weight 1), `above` / `below` (the in-between node
  // just above or below it, which takes a weight from I and from its neighbour) or `none`.
  enum class Side { own, above, below, none };
  GRIDSOLVE_HD Side side_of(int i, int I) const {
    const int f = fine_of(I);
    if (i == f) return Side::own;
    if (!on) return Side::none;
    const int d = i - f;
    if ((d != 1 && d != -1) || aligned(i)) return Side::none;
    return d == 1 ? Side::above : Side::below;
  }
  // Interpolation weight of coarse node I at fine node i, from positions.
  GRIDSOLVE_HD double weight(int i, int I) const {
    const Side side = side_of(i, I);
    if (side == Side::own) return 1.0;
    if (side == Side::none) return 0.0;
    // Linear in position between the enclosing coarse nodes i - 1 and i + 1.
    const double span = x[i + 1] - x[i - 1];
    return side == Side::above ? (x[i + 1] - x[i]) / span : (x[i] - x[i - 1]) / span;
  }
};

struct Maps {
  AxisMap a[3];
  Maps() = default;
  explicit Maps(const Coarsening& c) {
    for (int x = 0; x < 3; ++x)
      a[x] = AxisMap{c.fine[x], c.coarse[x], c.coarsened[x], c.fine_x[x], c.fine_lower_weight[x],
                     c.wraps[x]};
  }
};

// Interpolation weights as the transfer kernels read them: precomputed per fine node
// (the lower coarse neighbour's weight on each axis) where the fine operator varies,
// from node positions where it is uniform (level 0 of a constant-coefficient problem).
template <class T>
struct Transfer {
  Maps m;
  FieldView<const T> lower[3];
  bool on_parts = false;  // InterpolationWeights::on_parts

  // The restriction's innermost loop calls this per fine node and axis, so each kind of
  // weight does only its own index work (one more test ahead of the folds made a whole
  // multigrid solve several percent slower).
  GRIDSOLVE_HD double lower_weight(int axis, int i, int j, int k) const {
    const AxisMap& x = m.a[axis];
    // From positions: only this axis's index matters, folded across a periodic side.
    if (!lower[axis]) return x.wl[x.fold(axis == 0 ? i : axis == 1 ? j : k)];
    // A whole level's field is read at the node a periodic index images; a rank's part
    // where the node lies (its ghosts hold the images' weights).
    if (!on_parts) i = m.a[0].fold(i), j = m.a[1].fold(j), k = m.a[2].fold(k);
    return double(lower[axis](i, j, k));
  }
  GRIDSOLVE_HD double weight(int axis, int i, int j, int k, int I) const {
    const AxisMap& x = m.a[axis];
    const AxisMap::Side side = x.side_of(axis == 0 ? i : axis == 1 ? j : k, I);
    if (side == AxisMap::Side::own) return 1.0;
    if (side == AxisMap::Side::none) return 0.0;
    const double wl = lower_weight(axis, i, j, k);
    return side == AxisMap::Side::above ? wl : 1.0 - wl;
  }
  GRIDSOLVE_HD double weight(int i, int j, int k, int I, int J, int K) const {
    const double wx = weight(0, i, j, k, I);
    if (wx == 0.0) return 0.0;
    const double wy = weight(1, i, j, k, J);
    if (wy == 0.0) return 0.0;
    return wx * wy * weight(2, i, j, k, K);
  }
};

template <class T>
Transfer<T> transfer_of(const Coarsening& c, const InterpolationWeights<T>& w) {
  Transfer<T> t{Maps(c), {}, w.on_parts};
  for (int a = 0; a < 3; ++a)
    if (!w.lower[a].empty()) t.lower[a] = w.lower[a].cview();
  return t;
}

// The loop bodies below are functors, not lambdas: the host calls of nvcc's extended
// lambdas go through a function pointer the host compiler cannot inline (in a CUDA build,
// multigrid on the CPU ran 1.2-1.5x slower for it); a functor's operator() inlines into the
// CPU loop and launches on the GPU alike.
// The transfers' loop bodies take the dimension count as a constant and run their loops
// over fixed bounds (at most 3 nodes an axis restricting, 2 interpolating) with an early
// exit, in the order of the plain loops over lo .. hi (so the sums are the same to the
// bit): with bounds known only at run time the per-axis arrays sat in local memory, and
// on a 2047^2 level the interpolation took 67 us and the restriction 39 on an H200.
// The fine values a restriction reads: a field's (Source = FieldView), or the fine
// level's residual formed where it is read (ResidualSource).
template <class T, int Dims, class Source = FieldView<const T>>
struct RestrictBody {
  Transfer<T> tr;
  Source rv;
  FieldView<T> out;
  StencilView<T> coarse;
  std::array<int, 3> nf;
  bool positional;  // every axis's weights come from positions (none learned per node)

  GRIDSOLVE_HD void operator()(int I, int J, int K) const {
    if (!coarse.is_free(I, J, K)) {
      out(I, J, K) = T(0);
      return;
    }
    const int C[3] = {I, J, K};
    // Per axis, the fine nodes that interpolate from this coarse node: its own (weight 1)
    // and the in-between neighbours below and above (weight 1 - w_lower and w_lower of
    // that node; aligned neighbours belong to other coarse nodes).
    int lo[3], count[3], f[3];
    GRIDSOLVE_UNROLL
    for (int a = 0; a < 3; ++a) {
      const AxisMap& x = tr.m.a[a];
      f[a] = x.fine_of(C[a]);
      const bool on = a < Dims && x.on;
      // Below fine node 0 of a periodic axis lies the ghost, the image of node nf - 2.
      lo[a] = on && (f[a] - 1 >= 0 || x.wraps) && !x.aligned(f[a] - 1) ? f[a] - 1 : f[a];
      const int hi = on && f[a] + 1 < nf[a] && !x.aligned(f[a] + 1) ? f[a] + 1 : f[a];
      count[a] = hi - lo[a] + 1;
    }
    double s = 0;
    if (positional) {
      // Weights from positions depend on their own axis's index only: the 3 x 3 (x 3)
      // weights are the products of three per-axis lists, made once per coarse node.
      double w[3][3];
      GRIDSOLVE_UNROLL
      for (int a = 0; a < 3; ++a) {
        GRIDSOLVE_UNROLL
        for (int t = 0; t < 3; ++t) {
          if (t >= count[a]) break;
          const int q = lo[a] + t;
          const AxisMap& x = tr.m.a[a];
          const double wl = q == f[a] ? 1.0 : x.wl[x.fold(q)];
          w[a][t] = q == f[a] ? 1.0 : q > f[a] ? wl : 1.0 - wl;
        }
      }
      GRIDSOLVE_UNROLL
      for (int kk = 0; kk < 3; ++kk) {
        if (kk >= count[2]) break;
        double sj = 0;
        GRIDSOLVE_UNROLL
        for (int jj = 0; jj < 3; ++jj) {
          if (jj >= count[1]) break;
          double si = 0;
          GRIDSOLVE_UNROLL
          for (int ii = 0; ii < 3; ++ii) {
            if (ii >= count[0]) break;
            si += w[0][ii] * double(rv(lo[0] + ii, lo[1] + jj, lo[2] + kk));
          }
          sj += w[1][jj] * si;
        }
        s += w[2][kk] * sj;
      }
      out(I, J, K) = T(s);
      return;
    }
    GRIDSOLVE_UNROLL
    for (int kk = 0; kk < 3; ++kk) {
      if (kk >= count[2]) break;
      GRIDSOLVE_UNROLL
      for (int jj = 0; jj < 3; ++jj) {
        if (jj >= count[1]) break;
        GRIDSOLVE_UNROLL
        for (int ii = 0; ii < 3; ++ii) {
          if (ii >= count[0]) break;
          const int i = lo[0] + ii, j = lo[1] + jj, k = lo[2] + kk;
          double w = 1;
          const int p[3] = {i, j, k};
          GRIDSOLVE_UNROLL
          for (int a = 0; a < Dims; ++a) {
            if (p[a] == f[a]) continue;
            const double wl = tr.lower_weight(a, i, j, k);
            w *= p[a] > f[a] ? wl : 1.0 - wl;
          }
          s += w * double(rv(i, j, k));
        }
      }
    }
    out(I, J, K) = T(s);
  }
};

// b - A u at a fine node, as the cycle's residual loop writes it there (the same
// expression, so the same value to the bit): zero off the free nodes of the active box,
// where that loop leaves the residual field's zeros. Uniform: constant coefficients and
// no mask (StencilView::uniform_residual).
template <class T, bool Uniform, bool Three>
struct ResidualSource {
  static constexpr bool three = Three;
  StencilView<T> a;
  FieldView<const T> v;
  GRIDSOLVE_HD T operator()(int i, int j, int k) const {
    if (!a.active.contains(i, j, k)) return T(0);
    if constexpr (Uniform) {
      return a.template uniform_residual<Three>(v, i, j, k);
    } else {
      return a.is_free(i, j, k) ? a.residual(v, i, j, k) : T(0);
    }
  }
};

template <class T, int Dims>
struct InterpolateAddBody {
  Transfer<T> tr;
  FieldView<const T> ev;
  FieldView<T> uv;
  StencilView<T> fine;

  GRIDSOLVE_HD void operator()(int i, int j, int k) const {
    if (!fine.is_free(i, j, k)) return;
    const int f[3] = {i, j, k};
    // Per axis: one coarse node with weight 1, or two with weights wl and 1 - wl.
    int lo[3], count[3];
    double wl[3];
    GRIDSOLVE_UNROLL
    for (int a = 0; a < 3; ++a) {
      const AxisMap& x = tr.m.a[a];
      if (a >= Dims || x.aligned(f[a])) {
        lo[a] = x.coarse_of_aligned(f[a]);
        count[a] = 1;
        wl[a] = 1.0;
      } else {
        lo[a] = x.coarse_of_aligned(f[a] - 1);
        count[a] = x.coarse_of_aligned(f[a] + 1) - lo[a] + 1;
        wl[a] = tr.lower_weight(a, i, j, k);
      }
    }
    double s = 0;
    GRIDSOLVE_UNROLL
    for (int kk = 0; kk < 2; ++kk) {
      if (kk >= count[2]) break;
      const double wk = kk == 0 ? wl[2] : 1.0 - wl[2];
      GRIDSOLVE_UNROLL
      for (int jj = 0; jj < 2; ++jj) {
        if (jj >= count[1]) break;
        const double wj = wk * (jj == 0 ? wl[1] : 1.0 - wl[1]);
        GRIDSOLVE_UNROLL
        for (int ii = 0; ii < 2; ++ii) {
          if (ii >= count[0]) break;
          s +=
              wj * (ii == 0 ? wl[0] : 1.0 - wl[0]) * double(ev(lo[0] + ii, lo[1] + jj, lo[2] + kk));
        }
      }
    }
    uv(i, j, k) += T(s);
  }
};

}  // namespace gridsolve::multigrid
