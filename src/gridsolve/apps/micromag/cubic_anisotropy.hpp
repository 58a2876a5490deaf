// Cubic anisotropy: energy Kc1 (a1^2 a2^2 + a2^2 a3^2 + a3^2 a1^2) with a_i = m . c_i,
// B = -(2 Kc1 / Ms) sum_i a_i (a_j^2 + a_k^2) c_i.
#pragma once
#include "gridsolve/apps/micromag/field_term.hpp"

namespace gridsolve::micromag {

template <class T>
struct CubicAnisotropy {
  static constexpr unsigned bit = term_anisotropy;
  static CubicAnisotropy make(const TermInputs<T>&) { return {}; }

  GRIDSOLVE_HD void add(const CellState<T>& c, T b[3]) const {
    const MaterialParams<T>& p = c.p;
    if (p.kc1 == T(0)) return;
    const T* mi = c.m;
    const T a1 = mi[0] * p.c1[0] + mi[1] * p.c1[1] + mi[2] * p.c1[2];
    const T a2 = mi[0] * p.c2[0] + mi[1] * p.c2[1] + mi[2] * p.c2[2];
    const T a3 = mi[0] * p.c3[0] + mi[1] * p.c3[1] + mi[2] * p.c3[2];
    const T f = -T(2) * p.kc1 * p.inv_ms;
    const T g1 = f * a1 * (a2 * a2 + a3 * a3), g2 = f * a2 * (a1 * a1 + a3 * a3),
            g3 = f * a3 * (a1 * a1 + a2 * a2);
    for (int d = 0; d < 3; ++d) b[d] += g1 * p.c1[d] + g2 * p.c2[d] + g3 * p.c3[d];
  }

  // From the density itself (in double): B is not linear in m.
  GRIDSOLVE_HD double energy_density(const CellState<T>& c) const {
    const MaterialParams<T>& p = c.p;
    if (p.kc1 == T(0)) return 0.0;
    const double m0 = c.m[0], m1 = c.m[1], m2 = c.m[2];
    const double a1 = m0 * p.c1[0] + m1 * p.c1[1] + m2 * p.c1[2];
    const double a2 = m0 * p.c2[0] + m1 * p.c2[1] + m2 * p.c2[2];
    const double a3 = m0 * p.c3[0] + m1 * p.c3[1] + m2 * p.c3[2];
    return double(p.kc1) * (a1 * a1 * a2 * a2 + a2 * a2 * a3 * a3 + a3 * a3 * a1 * a1);
  }
};

}  // namespace gridsolve::micromag
