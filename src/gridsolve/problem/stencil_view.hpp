// StencilView: the assembled 5/7-point operator as a by-value view for loop bodies.
#pragma once
#include <cstdint>

#include "gridsolve/core/box.hpp"
#include "gridsolve/core/field_view.hpp"
#include "gridsolve/core/hd.hpp"

namespace gridsolve {

// Row P of the system, for free nodes:  a_P u_P - sum_nb a_nb u_nb = b_P.
// Fixed nodes keep their value in u; their coefficients stay in the rows of their free
// neighbours, so the operator always acts on the whole field.
template <class T>
struct StencilView {
  int dims = 2;
  Box active;  // nodes that may be unknowns (on several ranks: this rank's part of them)
  // The whole problem's active box (active itself on one rank): what decides whether a
  // neighbour is an unknown, and the period of periodic axes.
  Box global_active;
  // Uniform coefficients (when `uniform`): every free node has the same row.
  bool uniform = true;
  T cp = 0, cw = 0, ce = 0, cs = 0, cn = 0, cb = 0, ct = 0;
  T b_const = 0;
  // Per-node coefficients (when not uniform).
  FieldView<const T> ap, aw, ae, as, an, ab, at;
  FieldView<const T> rhs;              // empty: b_P = b_const
  FieldView<const std::uint8_t> mask;  // empty: every active node is free
  // Bit a set: axis a is periodic. The active box then spans exactly one period on that
  // axis, and the nodes just beyond it (a ghost below, the image node above) are copies
  // of unknowns that the operator's exchange_ghosts keeps up to date.
  std::uint8_t periodic = 0;
  // One rank's part of an operator split over ranks (see is_known).
  bool part = false;
  // Every per-node array (coefficients, rhs, mask) indexed alike (the same pitch and
  // plane): a node's offset is then computed once for all of them (see row), where each
  // array's own index arithmetic took more of a sweep's issue slots than its arithmetic.
  bool shared_layout = false;

  // Sets shared_layout from the arrays the view holds (host side, after they are set).
  void find_shared_layout() {
    shared_layout = false;
    if (uniform) return;
    const std::int64_t pitch = ap.pitch, plane = ap.plane;
    bool same = aw.pitch == pitch && ae.pitch == pitch && as.pitch == pitch && an.pitch == pitch &&
                aw.plane == plane && ae.plane == plane && as.plane == plane && an.plane == plane;
    if (dims == 3)
      same =
          same && ab.pitch == pitch && at.pitch == pitch && ab.plane == plane && at.plane == plane;
    if (rhs) same = same && rhs.pitch == pitch && rhs.plane == plane;
    if (mask) same = same && mask.pitch == pitch && mask.plane == plane;
    shared_layout = same;
  }

  GRIDSOLVE_HD bool wraps(int axis) const { return (periodic >> axis) & 1; }
  // Index i on `axis` moved into the active box by whole periods (periodic axes only).
  GRIDSOLVE_HD int fold(int axis, int i) const {
    if (!wraps(axis)) return i;
    const int lo = global_active.lo[axis], period = global_active.hi[axis] - lo + 1;
    const int r = (i - lo) % period;
    return lo + (r < 0 ? r + period : r);
  }
  GRIDSOLVE_HD bool is_free(int i, int j, int k) const { return mask ? mask(i, j, k) == 0 : true; }
  // True for neighbours whose value is data rather than unknown (a periodic image is
  // its unknown's copy, so it is known only when that node is).
  // A rank's part reads the mask where the neighbour lies (its ghosts hold the images'
  // marks); a whole field, at the unknown the neighbour images.
  GRIDSOLVE_HD bool is_known(int i, int j, int k) const {
    const int fi = fold(0, i), fj = fold(1, j), fk = fold(2, k);
    if (!global_active.contains(fi, fj, fk)) return true;
    if (!mask) return false;
    return part ? mask(i, j, k) != 0 : mask(fi, fj, fk) != 0;
  }
  GRIDSOLVE_HD T diag(int i, int j, int k) const { return uniform ? cp : ap(i, j, k); }
  GRIDSOLVE_HD T b(int i, int j, int k) const { return rhs ? rhs(i, j, k) : b_const; }

  // Row P as numbers: what an update of node P reads besides u (the relaxations' updates
  // take it apart from u: exec/red_black_sweep.hpp).
  struct Row {
    T b, diag, w, e, s, n, bottom, top;
    bool free;
  };
  GRIDSOLVE_HD Row row(int i, int j, int k) const {
    if (uniform) return Row{b(i, j, k), cp, cw, ce, cs, cn, cb, ct, is_free(i, j, k)};
    const bool three = dims == 3;
    if (shared_layout) {
      const std::int64_t o = i + ap.pitch * j + ap.plane * k;
      return Row{rhs ? rhs.data[o] : b_const,
                 ap.data[o],
                 aw.data[o],
                 ae.data[o],
                 as.data[o],
                 an.data[o],
                 three ? ab.data[o] : T(0),
                 three ? at.data[o] : T(0),
                 mask ? mask.data[o] == 0 : true};
    }
    return Row{b(i, j, k),
               ap(i, j, k),
               aw(i, j, k),
               ae(i, j, k),
               as(i, j, k),
               an(i, j, k),
               three ? ab(i, j, k) : T(0),
               three ? at(i, j, k) : T(0),
               is_free(i, j, k)};
  }

  // sum_nb a_nb u_nb
  template <class U>
  GRIDSOLVE_HD T neighbours(const Row& r, const FieldView<U>& u, int i, int j, int k) const {
    T s = r.w * u(i - 1, j, k) + r.e * u(i + 1, j, k) + r.s * u(i, j - 1, k) + r.n * u(i, j + 1, k);
    if (dims == 3) s += r.bottom * u(i, j, k - 1) + r.top * u(i, j, k + 1);
    return s;
  }
  template <class U>
  GRIDSOLVE_HD T neighbours(const FieldView<U>& u, int i, int j, int k) const {
    return neighbours(row(i, j, k), u, i, j, k);
  }

  // b_P - (A u)_P at a free node.
  template <class U>
  GRIDSOLVE_HD T residual(const Row& r, const FieldView<U>& u, int i, int j, int k) const {
    return r.b + neighbours(r, u, i, j, k) - r.diag * u(i, j, k);
  }
  template <class U>
  GRIDSOLVE_HD T residual(const FieldView<U>& u, int i, int j, int k) const {
    return residual(row(i, j, k), u, i, j, k);
  }

  // The same for constant coefficients (uniform) at any node, with the dimension count a
  // constant (Three: 3D) and no per-node tests: the same value to the bit. The loops that
  // run over whole fine levels take it (with the general row's branches a 2047^2 level's
  // residual ran at half the copy bandwidth on an H200).
  template <bool Three, class U>
  GRIDSOLVE_HD T uniform_residual(const FieldView<U>& u, int i, int j, int k) const {
    T s = cw * u(i - 1, j, k) + ce * u(i + 1, j, k) + cs * u(i, j - 1, k) + cn * u(i, j + 1, k);
    if constexpr (Three) s += cb * u(i, j, k - 1) + ct * u(i, j, k + 1);
    return (rhs ? rhs(i, j, k) : b_const) + s - cp * u(i, j, k);
  }

  // b_P plus the contributions of known neighbours: the right-hand side of the
  // system in the unknowns alone, whose norm scales the relative residual.
  template <class U>
  GRIDSOLVE_HD T known_rhs(const FieldView<U>& u, int i, int j, int k) const {
    T s = b(i, j, k);
    const int di[6] = {-1, 1, 0, 0, 0, 0}, dj[6] = {0, 0, -1, 1, 0, 0}, dk[6] = {0, 0, 0, 0, -1, 1};
    const int faces = dims == 3 ? 6 : 4;
    for (int f = 0; f < faces; ++f) {
      const int ii = i + di[f], jj = j + dj[f], kk = k + dk[f];
      if (is_known(ii, jj, kk)) s += coefficient(f, i, j, k) * u(ii, jj, kk);
    }
    return s;
  }

  // a_nb toward face f (0..5 = w, e, s, n, b, t).
  GRIDSOLVE_HD T coefficient(int f, int i, int j, int k) const {
    if (uniform) {
      const T c[6] = {cw, ce, cs, cn, cb, ct};
      return c[f];
    }
    switch (f) {
      case 0:
        return aw(i, j, k);
      case 1:
        return ae(i, j, k);
      case 2:
        return as(i, j, k);
      case 3:
        return an(i, j, k);
      case 4:
        return ab(i, j, k);
      default:
        return at(i, j, k);
    }
  }
};

}  // namespace gridsolve
