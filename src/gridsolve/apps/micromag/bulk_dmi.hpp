// Bulk Dzyaloshinskii-Moriya interaction (B20 crystals, mumax3's Dbulk): energy density
// D m . curl m, field B = -(2 D / Ms) curl m, curl m = sum over the axes of e_a x d_a m, the
// derivatives central differences over the six neighbours. At a free surface the natural
// boundary condition of this energy with exchange, 2A dm/dn = D n x m (the boundary terms of
// its variation), gives the missing neighbour the value m + d (D / 2A) n x m (d the cell
// size along n); it enters the curl, and the exchange term, which counts a missing
// neighbour as equal to m, gets the difference from this term. A single layer has free
// surfaces above and below (unless z is periodic: then its own neighbour), where only the
// boundary values enter. Between regions D is the harmonic mean, as A's.
#pragma once
#include "gridsolve/apps/micromag/field_term.hpp"

namespace gridsolve::micromag {

template <class T>
struct BulkDmi {
  static constexpr unsigned bit = term_dmi;
  CellNeighbours<T> at;
  const MaterialParams<T>* mat;
  T d[3];
  bool layered;     // z neighbours are stored
  bool free_layer;  // a single layer with free surfaces above and below

  static BulkDmi make(const TermInputs<T>& in) {
    BulkDmi e{};
    e.at = CellNeighbours<T>::make(in);
    e.mat = in.mat;
    for (int a = 0; a < 3; ++a) e.d[a] = T(in.mesh->cell[a]);
    e.layered = in.mesh->n[2] > 1;
    e.free_layer = !e.layered && !in.mesh->periodic[2];
    return e;
  }


  GRIDSOLVE_HD void add(const CellState<T>& c, T b[3]) const {
    // Without D here every term below vanishes (a harmonic mean with 0 is 0).
    const T dc = c.p.dbulk;
    if (dc == T(0) || c.p.ms == T(0)) return;
    T curl[3] = {0, 0, 0}, ex[3] = {0, 0, 0};
    const int axes = layered || free_layer ? 3 : 2;
    for (int a = 0; a < axes; ++a) {
      for (int side = 0; side < 2; ++side) {
        const T sgn = side == 0 ? T(-1) : T(1);  // the outward normal along axis a
        T nb[3];
        T dij = dc;
        bool stored = false;
        if (a < 2 || layered) {
          const int r2 = at.region[c.rq + (side == 0 ? -at.rstep[a] : at.rstep[a])];
          if (mat[r2].ms != T(0)) {
            const std::int64_t q2 = c.q + (side == 0 ? -at.step[a] : at.step[a]);
            for (int k = 0; k < 3; ++k) nb[k] = at.m[k][q2];
            if (r2 != c.region) dij = harmonic_mean(dc, mat[r2].dbulk);
            stored = true;
          }
        }
        if (!stored) {
          if (c.p.aex == T(0)) continue;  // no exchange: no boundary condition to meet
          // n x m for n = sgn e_a, times d (D / 2A).
          const T f = sgn * d[a] * dc / (T(2) * c.p.aex);
          const int a1 = (a + 1) % 3, a2 = (a + 2) % 3;
          T g[3];
          g[a] = T(0);
          g[a1] = -f * c.m[a2];
          g[a2] = f * c.m[a1];
          for (int k = 0; k < 3; ++k) nb[k] = c.m[k] + g[k];
          for (int k = 0; k < 3; ++k) ex[k] += c.p.aex * g[k] / (d[a] * d[a]);
        }
        // e_a x d_a m, the neighbour's share sgn nb / (2 d) of d_a m.
        const T w = sgn * dij / (T(2) * d[a]);
        const int a1 = (a + 1) % 3, a2 = (a + 2) % 3;
        curl[a1] -= w * nb[a2];
        curl[a2] += w * nb[a1];
      }
    }
    const T f = T(2) * c.p.inv_ms;
    for (int k = 0; k < 3; ++k) b[k] += f * (ex[k] - curl[k]);
  }

  // -1/2 Ms m . B: the energy is bilinear in m (the boundary values are linear in m too).
  GRIDSOLVE_HD double energy_density(const CellState<T>& c) const {
    T bf[3] = {0, 0, 0};
    add(c, bf);
    return linear_energy_density(c, bf, -0.5);
  }
};

}  // namespace gridsolve::micromag
