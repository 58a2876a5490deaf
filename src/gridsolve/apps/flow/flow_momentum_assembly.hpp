// The momentum equation of one velocity face (the loop body of assemble_momentum): finite
// volumes on the face's staggered cell, convection upwind or with a deferred correction,
// diffusion central, walls, inflows and bodies folded into the row.
#pragma once
#include <array>

#include "gridsolve/apps/flow/flow_loop_helpers.hpp"
#include "gridsolve/core/field_view.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/problem/mac_grid.hpp"

namespace gridsolve::flow::detail {

GRIDSOLVE_HD inline double pos(double x) {
  return x > 0 ? x : 0.0;
}

// The implicit coefficient of a link with mass flux F (outward) and diffusion D: hybrid
// (scheme 1) or upwind (every other scheme; the higher-order ones correct it explicitly).
GRIDSOLVE_HD inline double link_coefficient(int scheme, double F, double D) {
  if (scheme == 1) {
    const double a = -F > D - 0.5 * F ? -F : D - 0.5 * F;
    return a > 0 ? a : 0;
  }
  return D + pos(-F);
}

// The deferred correction of a link (schemes 2 to 4): the face value minus upwind's, from
// the upwind value pc, the downwind one pd and the far upwind one pu (`far`: whether it
// exists). van Leer's limited value (2), QUICK's 3/8 of the way to the downwind value plus
// 1/8 of the upwind slope (3), central half way (4; and QUICK without a far value): the
// last two are not bounded. Without a far value van Leer stays upwind.
GRIDSOLVE_HD inline double correction_toward(int scheme, bool far, double pc, double pd,
                                             double pu) {
  const double den = pd - pc;
  if (scheme == 2) {
    if (!far || !(den > 1e-300 || den < -1e-300)) return 0;
    const double r = (pc - pu) / den, ar = r > 0 ? r : -r;
    return 0.5 * (r + ar) / (1 + ar) * den;
  }
  if (scheme == 3 && far) return (3 * den + (pc - pu)) / 8;
  return 0.5 * den;
}

// The two faces of component q that carry the flux through the q-side face (side 0 below,
// 1 above) of the staggered cell around the component-C face I: they straddle it along C,
// at I[C] - 1 and I[C]. The general and the lean rows both read them.
GRIDSOLVE_HD inline void straddling_faces(const int I[3], int q, int C, int side, int K0[3],
                                          int K1[3]) {
  for (int a = 0; a < 3; ++a) K0[a] = K1[a] = I[a];
  K0[q] = K1[q] = I[q] + side;
  K0[C] = I[C] - 1;
}

// The momentum equation of velocity component c at one of its faces, finite volumes on
// the face's staggered cell:  a_P u_P = sum a_nb u_nb + b0 (+ pressure force).
// Convection: upwind or hybrid coefficients; tvd, quick and central add the difference
// between their face value and upwind's as a source (deferred correction): van Leer's
// limited one, QUICK's, or linear interpolation's. Diffusion: central. Walls and inflow sides
// fold their value into a_P and b0 (the wall half a cell from the face), zero-gradient
// sides drop the coupling; boundary faces of the normal axis are known values.
template <class T>
struct MomentumAssembly {
  static constexpr int min_blocks = 2;  // a dozen views: at most 128 registers, two blocks
  MacGeometry g;
  int c = 0, scheme = 0;
  int side_type[6] = {};
  bool periodic[3] = {false, false, false};
  // Transient: tcoef u^{n+1} - (c_n u^n - c_nm1 u^{n-1}) is the time derivative.
  T nu = 0, tcoef = 0, relax = 1, factor = 1, c_n = 0, c_nm1 = 0;
  bool transient = false, simplec = false;
  FieldView<const T> u[3], open[3], un, unm1, wall, body;
  FieldView<const std::uint8_t> fmask;
  Box ext;  // indices of component c that exist, ghosts included
  FieldView<T> ap, a[6], b0, d;

  // The steady row of a free face: neighbour coefficients (w, e, s, n, b, t), the
  // diagonal, the source, the staggered cell's volume and their sum |a_nb| (no time term,
  // no relaxation). What the implicit assembly stores and the explicit rate applies.
  struct Row {
    double coef[6] = {0, 0, 0, 0, 0, 0};
    double ap = 0, b = 0, vol = 0, sum_a = 0;
  };
  // Dims and the component C (== c) are compile-time constants: the loops unroll and the
  // index arrays stay in registers (run-time indices put them in local memory, which made
  // the explicit rate 8x slower than its traffic).
  template <int Dims, int C>
  GRIDSOLVE_HD Row row_of(int i, int j, int k) const {
    const int I[3] = {i, j, k};
    Row out;
    double* coef = out.coef;
    const double hc = g.xc(C, I[C]) - g.xc(C, I[C] - 1);
    double w[3];
    GRIDSOLVE_UNROLL
    for (int q = 0; q < 3; ++q) w[q] = q == C ? hc : g.width(q, I[q]);
    const double vol = w[0] * w[1] * w[2];
    const double uP = u[C](i, j, k);
    // Links to faces a body fixes carry no convective flux (the wall's velocity is zero)
    // and a diffusive one to the wall at its distance along the link (`body`).
    double sum_a = 0, extra = double(nu) * double(body(i, j, k)), b = 0, netF = 0;
    GRIDSOLVE_UNROLL
    for (int q = 0; q < Dims; ++q) GRIDSOLVE_UNROLL
    for (int side = 0; side < 2; ++side) {
      const int s = side ? 1 : -1;
      int J[3] = {i, j, k};
      J[q] += s;
      const double area = vol / w[q];
      double F, D;
      if (q == C) {
        F = s * 0.5 * (double(open[C](i, j, k)) * uP + double(at(open[C], J) * at(u[C], J))) * area;
        D = nu * area / g.width(C, side ? I[C] : I[C] - 1);
      } else {
        int K0[3], K1[3];
        straddling_faces(I, q, C, side, K0, K1);
        F = s *
            (double(at(open[q], K0) * at(u[q], K0)) * 0.5 * g.width(C, I[C] - 1) +
             double(at(open[q], K1) * at(u[q], K1)) * 0.5 * g.width(C, I[C])) *
            (area / hc);
        const double gap = g.xc(q, J[q]) - g.xc(q, I[q]);
        D = nu * area / (gap > 0 ? gap : -gap);
      }
      const bool outside = q != C && (J[q] < 0 || J[q] >= g.n[q]);
      if (outside) {
        const int st = side_type[2 * q + side];
        if (st == k_wall || st == k_velocity) {
          const double wv = double(at(wall, J)) * (st == k_velocity ? double(factor) : 1.0);
          extra += 2 * D;
          b += 2 * D * wv;
          if (F >= 0) {
            netF += F;
            b -= F * (wv - uP);
          } else {
            b -= F * wv;
          }
          continue;
        }
        if (st != k_periodic) {  // zero gradient: the face carries u_P out
          netF += F;
          continue;
        }
      }
      if (at(fmask, J)) {  // a face the body holds: its wall term is in `extra`
        continue;
      }
      const double acoef = link_coefficient(scheme, F, D);
      coef[2 * q + side] = acoef;
      sum_a += acoef;
      netF += F;
      if (scheme >= 2) {
        int Cn[3] = {i, j, k}, Dn[3] = {J[0], J[1], J[2]}, U[3] = {i, j, k};
        if (F > 0) {
          U[q] = I[q] - s;
        } else {
          Cn[q] = J[q], Dn[q] = I[q], U[q] = J[q] + s;
        }
        // Across a periodic side the far upwind value is the other end's (period n).
        if (periodic[q] && U[q] < ext.lo[q]) U[q] += g.n[q];
        if (periodic[q] && U[q] > ext.hi[q]) U[q] -= g.n[q];
        const bool far = U[q] >= ext.lo[q] && U[q] <= ext.hi[q];
        const double pu = far && scheme != 4 ? double(at(u[C], U)) : 0.0;
        b -= F * correction_toward(scheme, far, at(u[C], Cn), at(u[C], Dn), pu);
      }
    }
    out.ap = sum_a + netF + extra;
    out.b = b;
    out.vol = vol;
    out.sum_a = sum_a;
    return out;
  }

  // The stored row (the loop body of assemble_momentum; run by for_each_fixed).
  template <int Dims, int C>
  GRIDSOLVE_HD void apply(int i, int j, int k) const {
    if (fmask(i, j, k)) {
      ap(i, j, k) = 1;
      GRIDSOLVE_UNROLL
      for (int f = 0; f < 2 * Dims; ++f) a[f](i, j, k) = 0;
      b0(i, j, k) = 0;
      d(i, j, k) = 0;
      return;
    }
    const int I[3] = {i, j, k};
    store<Dims>(i, j, k, row_of<Dims, C>(i, j, k), u[C](i, j, k),
                g.xc(C, I[C]) - g.xc(C, I[C] - 1));
  }

  // The steady row r of a free face made the stored one: the time term, the relaxation
  // (uP the face's convecting value, hc the staggered cell's width along the component), and
  // the pressure equation's d = area / a_P (SIMPLEC: area / (a_P - sum a_nb)).
  template <int Dims>
  GRIDSOLVE_HD void store(int i, int j, int k, const Row& r, double uP, double hc) const {
    const double vol = r.vol, sum_a = r.sum_a;
    double aP = r.ap, b = r.b;
    if (transient) {
      aP += double(tcoef) * vol;
      b += vol * (double(c_n) * double(un(i, j, k)) - double(c_nm1) * double(unm1(i, j, k)));
    }
    const double aPr = aP / double(relax);
    b += (aPr - aP) * uP;
    ap(i, j, k) = T(aPr);
    GRIDSOLVE_UNROLL
    for (int f = 0; f < 2 * Dims; ++f) a[f](i, j, k) = T(r.coef[f]);
    b0(i, j, k) = T(b);
    const double area_c = vol / hc;
    double denom = simplec ? aPr - sum_a : aPr;
    if (denom < 1e-3 * aPr) denom = 1e-3 * aPr;
    d(i, j, k) = T(area_c / denom);
  }
};

// The steady row on a uniform grid without bodies, at faces two or more from every edge
// (all unknowns): the general row's arithmetic with the widths constant (h), every face
// open, no wall, no held face, and the far upwind face always there, read straight from the
// velocity: a fraction of the general row's instructions and registers. The implicit
// assembly (LeanMomentumAssembly) and the explicit rate (LeanMomentumRate) both take it.
struct LeanRow {
  // Per axis q: the width h_q, the area of the staggered cell's faces normal to q and their
  // diffusion coefficient nu area / h_q; the cell's volume and one over it.
  double width[3] = {1, 1, 1}, area[3] = {1, 1, 1}, diffusion[3] = {0, 0, 0}, volume = 1,
         inv_volume = 1;
  // Set from the grid's widths h (constant on each axis).
  void set_widths(const double h[3], double nu) {
    for (int q = 0; q < 3; ++q) width[q] = h[q];
    volume = h[0] * h[1] * h[2];
    for (int q = 0; q < 3; ++q) {
      area[q] = volume / h[q];
      diffusion[q] = nu * area[q] / h[q];
    }
    inv_volume = 1 / volume;
  }

  template <int Dims, int C, class T>
  GRIDSOLVE_HD typename MomentumAssembly<T>::Row row(const MomentumAssembly<T>& m, int i, int j,
                                                     int k, double uP) const {
    const FieldView<const T>& u = m.u[C];
    const int I[3] = {i, j, k};
    const int scheme = m.scheme;
    typename MomentumAssembly<T>::Row out;
    double netF = 0;
    GRIDSOLVE_UNROLL
    for (int q = 0; q < Dims; ++q) {
      const double half_area = 0.5 * area[q], D = diffusion[q];
      GRIDSOLVE_UNROLL
      for (int side = 0; side < 2; ++side) {
        const int sg = side ? 1 : -1;
        int J[3] = {i, j, k};
        J[q] += sg;
        const double uJ = at(u, J);
        double F;
        if (q == C) {
          F = sg * (uP + uJ) * half_area;
        } else {
          int K0[3], K1[3];
          straddling_faces(I, q, C, side, K0, K1);
          F = sg * (double(at(m.u[q], K0)) + double(at(m.u[q], K1))) * half_area;
        }
        const double acoef = link_coefficient(scheme, F, D);
        out.coef[2 * q + side] = acoef;
        out.sum_a += acoef;
        netF += F;
        if (scheme >= 2) {
          // Upwind of the face: (C, D, far U) = (P, J, P - sg) when F > 0, else (J, P, J + sg).
          int U[3] = {i, j, k};
          U[q] = F > 0 ? I[q] - sg : J[q] + sg;
          const double pu = scheme == 4 ? 0.0 : double(at(u, U));  // central: not read
          out.b -= F * correction_toward(scheme, true, F > 0 ? uP : uJ, F > 0 ? uJ : uP, pu);
        }
      }
    }
    out.ap = out.sum_a + netF;
    out.vol = volume;
    return out;
  }
};

// The stored row (MomentumAssembly::apply) from the lean row: the implicit assembly's
// loop body where LeanRow applies.
template <class T>
struct LeanMomentumAssembly {
  static constexpr int min_blocks = 4;
  MomentumAssembly<T> m;
  LeanRow lean;

  template <int Dims, int C>
  GRIDSOLVE_HD void apply(int i, int j, int k) const {
    const double uP = m.u[C](i, j, k);
    m.template store<Dims>(i, j, k, lean.row<Dims, C>(m, i, j, k, uP), uP, lean.width[C]);
  }
};

// One Runge-Kutta stage of the explicit momentum equation at one face of component c:
// the rate R = (b + sum a_nb u_nb - a_P u_P) / volume of the steady row (convection and
// diffusion as the implicit assembly discretizes them, walls and bodies included, no
// pressure), then u* = u + gamma_dt R + rho_dt R_previous, and R kept for the next stage.
// Boundary faces, periodic images and faces a body holds keep their value.
template <class T>
struct MomentumRate {
  static constexpr int min_blocks = 2;  // the general row reads a dozen views
  MomentumAssembly<T> m;                // steady, unrelaxed
  Box active;                           // component c's unknown faces
  double gamma_dt = 0, rho_dt = 0;
  FieldView<T> star, rate;

  template <int Dims, int C>
  GRIDSOLVE_HD void apply(int i, int j, int k) const {
    const FieldView<const T>& u = m.u[C];
    const double uP = u(i, j, k);
    if (!active.contains(i, j, k) || m.fmask(i, j, k)) {
      star(i, j, k) = T(uP);
      return;
    }
    const typename MomentumAssembly<T>::Row r = m.template row_of<Dims, C>(i, j, k);
    double s = r.b - r.ap * uP;
    GRIDSOLVE_UNROLL
    for (int q = 0; q < Dims; ++q) GRIDSOLVE_UNROLL
    for (int side = 0; side < 2; ++side) {
      const double a = r.coef[2 * q + side];
      if (a == 0) continue;
      int J[3] = {i, j, k};
      J[q] += side ? 1 : -1;
      s += a * double(at(u, J));
    }
    update(i, j, k, uP, s / r.vol);
  }
  GRIDSOLVE_HD void update(int i, int j, int k, double uP, double rt) const {
    star(i, j, k) = T(uP + gamma_dt * rt + (rho_dt != 0 ? rho_dt * double(rate(i, j, k)) : 0.0));
    rate(i, j, k) = T(rt);
  }
};

// The same stage where LeanRow applies.
template <class T>
struct LeanMomentumRate {
  static constexpr int min_blocks = 4;  // 64 registers: four blocks an SM
  MomentumRate<T> base;
  LeanRow lean;

  template <int Dims, int C>
  GRIDSOLVE_HD void apply(int i, int j, int k) const {
    const double uP = base.m.u[C](i, j, k);
    base.update(i, j, k, uP, lean_rate<Dims, C>(i, j, k, uP));
  }

  // (b + sum a_nb u_nb - a_P u_P) / volume of the lean row.
  template <int Dims, int C>
  GRIDSOLVE_HD double lean_rate(int i, int j, int k, double uP) const {
    const FieldView<const T>& u = base.m.u[C];
    const typename MomentumAssembly<T>::Row r = lean.row<Dims, C>(base.m, i, j, k, uP);
    double s = r.b - r.ap * uP;
    GRIDSOLVE_UNROLL
    for (int q = 0; q < Dims; ++q) GRIDSOLVE_UNROLL
    for (int side = 0; side < 2; ++side) {
      int J[3] = {i, j, k};
      J[q] += side ? 1 : -1;
      s += r.coef[2 * q + side] * double(at(u, J));
    }
    return s * lean.inv_volume;
  }
};

// Runs body.apply<Dims, C>(i, j, k) over the box with the dimension count and the velocity
// component as compile-time constants.
template <class Body, int Dims, int C>
struct FixedComponent {
  static constexpr int min_blocks = Body::min_blocks;  // the launch's register cap, if any
  Body body;
  GRIDSOLVE_HD void operator()(int i, int j, int k) const { body.template apply<Dims, C>(i, j, k); }
};
template <class Body>
void for_each_fixed(Device d, const Box& box, int dims, int c, const Body& body) {
  if (dims == 2) {
    if (c == 0)
      for_each(d, box, FixedComponent<Body, 2, 0>{body});
    else
      for_each(d, box, FixedComponent<Body, 2, 1>{body});
  } else if (c == 0) {
    for_each(d, box, FixedComponent<Body, 3, 0>{body});
  } else if (c == 1) {
    for_each(d, box, FixedComponent<Body, 3, 1>{body});
  } else {
    for_each(d, box, FixedComponent<Body, 3, 2>{body});
  }
}

// The faces of each component's `outer` box outside its `inner` box (the frames: up to two
// slabs an axis and component), every component's in one launch over their count: the
// general rows where the lean ones stop. (A launch per component cost a row's latency each:
// about 10 us a stage at 1024^2 on an H200 for a frame a few faces deep.)
template <class Body, int Dims>
struct FramesOf {
  static constexpr int min_blocks = Body::min_blocks;
  static constexpr int max_slabs = 2 * Dims * Dims;
  Body body[Dims];
  Box slab[max_slabs];
  int comp[max_slabs] = {};
  int start[max_slabs + 1] = {};
  int count = 0;
  GRIDSOLVE_HD void operator()(int t, int, int) const {
    int s = 0;
    while (s + 1 < count && t >= start[s + 1]) ++s;
    const Box& b = slab[s];
    const int r = t - start[s], nx = b.extent(0), ny = b.extent(1);
    const int i = b.lo[0] + r % nx, j = b.lo[1] + (r / nx) % ny, k = b.lo[2] + r / (nx * ny);
    if (comp[s] == 0)
      body[0].template apply<Dims, 0>(i, j, k);
    else if (Dims == 2 || comp[s] == 1)
      body[1].template apply<Dims, 1>(i, j, k);
    else
      body[Dims - 1].template apply<Dims, Dims - 1>(i, j, k);
  }
};
template <int Dims, class Body>
void for_each_frame_of(Device d, const std::array<Box, 3>& outer, const std::array<Box, 3>& inner,
                       const std::array<Body, 3>& bodies) {
  FramesOf<Body, Dims> frames;
  for (int c = 0; c < Dims; ++c) {
    frames.body[c] = bodies[std::size_t(c)];
    if (outer[std::size_t(c)].empty()) continue;  // no frame: this component is done apart
    Box rest = outer[std::size_t(c)];
    const Box& in = inner[std::size_t(c)];
    for (int a = 0; a < Dims; ++a) {
      Box low = rest, high = rest;
      low.hi[a] = in.lo[a] - 1;
      high.lo[a] = in.hi[a] + 1;
      for (const Box& b : {low, high})
        if (!b.empty()) {
          frames.slab[frames.count] = b;
          frames.comp[frames.count] = c;
          frames.start[frames.count + 1] = frames.start[frames.count] + int(b.cells());
          ++frames.count;
        }
      rest.lo[a] = in.lo[a];
      rest.hi[a] = in.hi[a];
    }
  }
  if (frames.count > 0) for_each(d, Box{{0, 0, 0}, {frames.start[frames.count] - 1, 0, 0}}, frames);
}
template <class Body>
void for_each_frame(Device d, const std::array<Box, 3>& outer, const std::array<Box, 3>& inner,
                    int dims, const std::array<Body, 3>& bodies) {
  if (dims == 2)
    for_each_frame_of<2>(d, outer, inner, bodies);
  else
    for_each_frame_of<3>(d, outer, inner, bodies);
}

}  // namespace gridsolve::flow::detail
