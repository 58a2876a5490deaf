// Exchange: B = (2 / Ms) sum over the 6 neighbours of A_ij (m_j - m_i) / d^2, read at fixed
// strides from the cell: beyond the box's sides they are the ghosts of m and of the region
// map. A neighbour without material adds nothing; so does a free side of the box, whose
// region ghosts are vacuum; a periodic side's ghosts hold the opposite side's cells.
// Between regions A_ij is the harmonic mean (mumax3's rule).
#pragma once
#include "gridsolve/apps/micromag/field_term.hpp"

namespace gridsolve::micromag {

template <class T>
struct ExchangeField {
  static constexpr unsigned bit = term_exchange;
  CellNeighbours<T> at;
  const MaterialParams<T>* mat;
  T inv_d2[3];
  bool layered;  // more than one cell along z (a single layer has no z neighbours stored)

  static ExchangeField make(const TermInputs<T>& in) {
    ExchangeField e{};
    e.at = CellNeighbours<T>::make(in);
    e.mat = in.mat;
    for (int a = 0; a < 3; ++a) e.inv_d2[a] = T(1 / (in.mesh->cell[a] * in.mesh->cell[a]));
    e.layered = in.mesh->n[2] > 1;
    return e;
  }

  // Every neighbour's region and m are loaded before any is used, and nothing branches on
  // them: a chain of "region, then its material, then m" per neighbour left the slope kernel
  // waiting on one load after another, at a quarter of the memory bandwidth. A neighbour
  // without material (or a free side's vacuum ghost) adds nothing.
  GRIDSOLVE_HD void add(const CellState<T>& c, T b[3]) const {
    constexpr int most = 6;
    const int n = layered ? 6 : 4;
    std::int64_t q2[most], rq2[most];
    T w[most];
    for (int a = 0; a < 3; ++a) {
      q2[2 * a] = c.q - at.step[a], q2[2 * a + 1] = c.q + at.step[a];
      rq2[2 * a] = c.rq - at.rstep[a], rq2[2 * a + 1] = c.rq + at.rstep[a];
      w[2 * a] = w[2 * a + 1] = inv_d2[a];
    }
    int r2[most];
    T mj[most][3];
    for (int t = 0; t < most; ++t) {
      if (t >= n) break;
      r2[t] = at.region[rq2[t]];
      for (int d = 0; d < 3; ++d) mj[t][d] = at.m[d][q2[t]];
    }
    const T a = c.p.aex;
    T s[3] = {0, 0, 0};
    for (int t = 0; t < most; ++t) {
      if (t >= n) break;
      T aij = a;  // within a region (nearly every pair): no material to look up
      if (r2[t] != c.region) {
        const MaterialParams<T>& p2 = mat[r2[t]];
        aij = p2.ms == T(0) ? T(0) : harmonic_mean(a, p2.aex);
      }
      // (a select, not a product: a vacuum ghost's m need not be finite)
      const T wt = aij * w[t];
      for (int d = 0; d < 3; ++d) s[d] += wt != T(0) ? wt * (mj[t][d] - c.m[d]) : T(0);
    }
    const T f = T(2) * c.p.inv_ms;
    for (int d = 0; d < 3; ++d) b[d] += f * s[d];
  }

  // -1/2 Ms m . B_ex: each pair's energy A |m_j - m_i|^2 / d^2 split between its cells.
  GRIDSOLVE_HD double energy_density(const CellState<T>& c) const {
    T b[3] = {0, 0, 0};
    add(c, b);
    return linear_energy_density(c, b, -0.5);
  }
};

}  // namespace gridsolve::micromag
