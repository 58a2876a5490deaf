// Uniaxial anisotropy: energy -Ku1 (m . u)^2, B = (2 Ku1 / Ms) (m . u) u.
#pragma once
#include "gridsolve/apps/micromag/field_term.hpp"

namespace gridsolve::micromag {

template <class T>
struct UniaxialAnisotropy {
  static constexpr unsigned bit = term_anisotropy;
  static UniaxialAnisotropy make(const TermInputs<T>&) { return {}; }

  GRIDSOLVE_HD void add(const CellState<T>& c, T b[3]) const {
    const MaterialParams<T>& p = c.p;
    if (p.ku1 == T(0)) return;
    const T mu = c.m[0] * p.u[0] + c.m[1] * p.u[1] + c.m[2] * p.u[2];
    const T f = T(2) * p.ku1 * p.inv_ms * mu;
    for (int d = 0; d < 3; ++d) b[d] += f * p.u[d];
  }

  // From the density itself (in double): B is not linear in m.
  GRIDSOLVE_HD double energy_density(const CellState<T>& c) const {
    const MaterialParams<T>& p = c.p;
    if (p.ku1 == T(0)) return 0.0;
    const double m0 = c.m[0], m1 = c.m[1], m2 = c.m[2];
    const double mu = m0 * p.u[0] + m1 * p.u[1] + m2 * p.u[2];
    return -(double(p.ku1) * mu * mu);
  }
};

}  // namespace gridsolve::micromag
