// Interfacial Dzyaloshinskii-Moriya interaction (a film on a heavy-metal layer, mumax3's
// Dind): energy density D (m_z div m - (m . grad) m_z), field
//   B = (2 D / Ms) (d_x m_z, d_y m_z, -d_x m_x - d_y m_y),
// the derivatives central differences over the in-plane neighbours. At a free surface
// (a neighbour without material, or a free side of the box) exchange and DMI together
// leave the natural boundary condition of this energy, 2A dm/dn + D (z x n) x m = 0 (the
// boundary terms of its variation), which gives the missing neighbour the value
// m - d (D / 2A) (z x n) x m (d the cell size along n) as mumax3 and OOMMF place such a
// neighbour. It enters the DMI derivative, and the exchange term, which counts a missing
// neighbour as equal to m, gets the difference from this term: with D = 0 nothing changes.
// Between regions D is the harmonic mean, as A's.
#pragma once
#include "gridsolve/apps/micromag/field_term.hpp"

namespace gridsolve::micromag {

template <class T>
struct InterfacialDmi {
  static constexpr unsigned bit = term_dmi;
  CellNeighbours<T> at;
  const MaterialParams<T>* mat;
  T d[2];  // cell size along x, y

  static InterfacialDmi make(const TermInputs<T>& in) {
    InterfacialDmi e{};
    e.at = CellNeighbours<T>::make(in);
    e.mat = in.mat;
    e.d[0] = T(in.mesh->cell[0]), e.d[1] = T(in.mesh->cell[1]);
    return e;
  }


  GRIDSOLVE_HD void add(const CellState<T>& c, T b[3]) const {
    // Without D here every term below vanishes (a harmonic mean with 0 is 0).
    const T dc = c.p.dind;
    if (dc == T(0) || c.p.ms == T(0)) return;
    T dmi[3] = {0, 0, 0}, ex[3] = {0, 0, 0};
    for (int a = 0; a < 2; ++a) {
      for (int side = 0; side < 2; ++side) {
        const T sgn = side == 0 ? T(-1) : T(1);  // the outward normal along axis a
        const std::int64_t q2 = c.q + (side == 0 ? -at.step[a] : at.step[a]);
        const int r2 = at.region[c.rq + (side == 0 ? -at.rstep[a] : at.rstep[a])];
        T nb[3];
        T dij = dc;
        if (mat[r2].ms != T(0)) {
          for (int k = 0; k < 3; ++k) nb[k] = at.m[k][q2];
          if (r2 != c.region) dij = harmonic_mean(dc, mat[r2].dind);
        } else {
          // (z x n) x m for n = sgn e_a: n = +x gives (m_z, 0, -m_x), n = +y (0, m_z, -m_y);
          // the neighbour is m - d (D / 2A) times that.
          if (c.p.aex == T(0)) continue;  // no exchange: no boundary condition to meet
          const T f = -sgn * d[a] * dc / (T(2) * c.p.aex);
          T g[3] = {0, 0, 0};
          g[a] = f * c.m[2];
          g[2] = -f * c.m[a];
          for (int k = 0; k < 3; ++k) nb[k] = c.m[k] + g[k];
          // The exchange term took this neighbour as m: its A (nb - m) / d^2 is added here.
          for (int k = 0; k < 3; ++k) ex[k] += c.p.aex * g[k] / (d[a] * d[a]);
        }
        // Central differences: each neighbour adds sgn * value / (2 d).
        const T w = sgn * dij / (T(2) * d[a]);
        dmi[a] += w * nb[2];
        dmi[2] -= w * nb[a];
      }
    }
    const T f = T(2) * c.p.inv_ms;
    for (int k = 0; k < 3; ++k) b[k] += f * (dmi[k] + ex[k]);
  }

  // -1/2 Ms m . B: the energy is bilinear in m (the boundary values are linear in m too).
  GRIDSOLVE_HD double energy_density(const CellState<T>& c) const {
    T bf[3] = {0, 0, 0};
    add(c, bf);
    return linear_energy_density(c, bf, -0.5);
  }
};

}  // namespace gridsolve::micromag
