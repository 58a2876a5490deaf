// Zhang-Li spin-transfer torque of a current density J (A/m^2) flowing through the
// magnet (Zhang & Li 2004; Thiaville et al. 2005): in Gilbert form
//   dm/dt = ... - (u . grad) m + xi m x (u . grad) m,
// u = -Pol muB J / (e Ms (1 + xi^2)), the drift velocity of the spins, along the electrons'
// flow (against J): a texture m(x - u t) is carried along u. The 1 / (1 + xi^2) is Zhang & Li's
// b_J, kept because mumax3 and the standard problem 5 proposal (Najafi et al. 2009) define u
// with it (0.25% at xi = 0.05). Solved for dm/dt together with
// the Gilbert damping, the torque joins the LLG slope as
//   [(1 + alpha xi) m x (m x D) + (xi - alpha) m x D] / (1 + alpha^2),  D = (u . grad) m,
// D by central differences; a missing neighbour (vacuum, a free side) counts as m. It is a
// torque, not a field: it enters LLG slopes only (not relax, minimize or the energies).
#pragma once
#include "gridsolve/apps/micromag/field_term.hpp"

namespace gridsolve::micromag {

template <class T>
struct ZhangLiTorque {
  CellNeighbours<T> at;
  const MaterialParams<T>* mat;
  T j_over_2d[3];  // J_a / (2 d_a): the current's share of each axis's central difference
  int axes;        // the axes whose neighbours are stored (2 for a single layer)
  bool on;

  static ZhangLiTorque make(const TermInputs<T>& in) {
    ZhangLiTorque z{};
    z.at = CellNeighbours<T>::make(in);
    z.mat = in.mat;
    z.axes = in.mesh->n[2] > 1 ? 3 : 2;
    z.on = false;
    for (int a = 0; a < 3; ++a) {
      z.j_over_2d[a] = T(in.current[a] / (2 * in.mesh->cell[a]));
      z.on = z.on || (in.current[a] != 0 && a < z.axes);
    }
    return z;
  }

  // Adds the torque to dm/dt at the cell.
  GRIDSOLVE_HD void add(const CellState<T>& c, T dmdt[3]) const {
    if (!on || c.p.pol == T(0) || c.p.ms == T(0)) return;
    // D = (u . grad) m = -Pol muB / (e Ms (1 + xi^2)) sum_a J_a d_a m.
    const double xi2 = double(c.p.xi) * double(c.p.xi);
    const T scale =
        T(-double(c.p.pol) * bohr_magneton / (elementary_charge * double(c.p.ms) * (1 + xi2)));
    T d[3] = {0, 0, 0};
    for (int a = 0; a < axes; ++a) {
      if (j_over_2d[a] == T(0)) continue;
      T hi[3], lo[3];
      neighbour(c, a, 1, hi);
      neighbour(c, a, -1, lo);
      for (int k = 0; k < 3; ++k) d[k] += j_over_2d[a] * (hi[k] - lo[k]);
    }
    for (int k = 0; k < 3; ++k) d[k] *= scale;
    const T* mi = c.m;
    const T mxd[3] = {mi[1] * d[2] - mi[2] * d[1], mi[2] * d[0] - mi[0] * d[2],
                      mi[0] * d[1] - mi[1] * d[0]};
    const T mxmxd[3] = {mi[1] * mxd[2] - mi[2] * mxd[1], mi[2] * mxd[0] - mi[0] * mxd[2],
                        mi[0] * mxd[1] - mi[1] * mxd[0]};
    const T a = c.p.alpha, xi = c.p.xi;
    const T inv = T(1) / (T(1) + a * a);
    for (int k = 0; k < 3; ++k) dmdt[k] += inv * ((T(1) + a * xi) * mxmxd[k] + (xi - a) * mxd[k]);
  }

 private:
  GRIDSOLVE_HD void neighbour(const CellState<T>& c, int a, int side, T out[3]) const {
    const int r2 = at.region[c.rq + side * at.rstep[a]];
    if (mat[r2].ms == T(0)) {
      for (int k = 0; k < 3; ++k) out[k] = c.m[k];
      return;
    }
    const std::int64_t q2 = c.q + side * at.step[a];
    for (int k = 0; k < 3; ++k) out[k] = at.m[k][q2];
  }
};

}  // namespace gridsolve::micromag
