// Zeeman: the external field B_ext (T), the same in every cell; energy -Ms m . B_ext.
#pragma once
#include "gridsolve/apps/micromag/field_term.hpp"

namespace gridsolve::micromag {

template <class T>
struct ZeemanField {
  static constexpr unsigned bit = term_zeeman;
  T bext[3];

  static ZeemanField make(const TermInputs<T>& in) {
    return {{T(in.bext[0]), T(in.bext[1]), T(in.bext[2])}};
  }

  GRIDSOLVE_HD void add(const CellState<T>&, T b[3]) const {
    for (int d = 0; d < 3; ++d) b[d] += bext[d];
  }

  GRIDSOLVE_HD double energy_density(const CellState<T>& c) const {
    T b[3] = {0, 0, 0};
    add(c, b);
    return linear_energy_density(c, b, -1.0);
  }
};

}  // namespace gridsolve::micromag
