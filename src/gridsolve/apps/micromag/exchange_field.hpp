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

  // The neighbour at element q2 of m (rq2 of the region map), 1 / d^2 = w away.
  GRIDSOLVE_HD void neighbour(std::int64_t q2, std::int64_t rq2, const CellState<T>& c, T w,
                              T s[3]) const {
    const int r2 = at.region[rq2];
    if (mat[r2].ms == T(0)) return;
    const T a = c.p.aex;
    const T aij = r2 != c.region ? harmonic_mean(a, mat[r2].aex) : a;
    for (int d = 0; d < 3; ++d) s[d] += aij * w * (at.m[d][q2] - c.m[d]);
  }

  GRIDSOLVE_HD void add(const CellState<T>& c, T b[3]) const {
    if (c.p.aex == T(0)) return;
    T s[3] = {0, 0, 0};
    neighbour(c.q - at.step[0], c.rq - at.rstep[0], c, inv_d2[0], s);
    neighbour(c.q + at.step[0], c.rq + at.rstep[0], c, inv_d2[0], s);
    neighbour(c.q - at.step[1], c.rq - at.rstep[1], c, inv_d2[1], s);
    neighbour(c.q + at.step[1], c.rq + at.rstep[1], c, inv_d2[1], s);
    if (layered) {
      neighbour(c.q - at.step[2], c.rq - at.rstep[2], c, inv_d2[2], s);
      neighbour(c.q + at.step[2], c.rq + at.rstep[2], c, inv_d2[2], s);
    }
    const T f = T(2) / c.p.ms;
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
