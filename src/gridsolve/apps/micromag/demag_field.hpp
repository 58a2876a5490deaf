// Demag: mu0 H, H read from the demag convolution's output (the caller has loaded Ms m
// into its input and convolved); nothing when the problem has no demag.
#pragma once
#include "gridsolve/apps/micromag/field_term.hpp"

namespace gridsolve::micromag {

template <class T>
struct DemagField {
  static constexpr unsigned bit = term_demag;
  demag::PaddedVector<T> h;
  bool on;

  static DemagField make(const TermInputs<T>& in) {
    return {in.demag ? *in.demag : demag::PaddedVector<T>{}, in.demag != nullptr};
  }

  GRIDSOLVE_HD void add(const CellState<T>& c, T b[3]) const {
    if (!on) return;
    const std::int64_t q = h.at(c.i, c.j, c.k);
    for (int d = 0; d < 3; ++d) b[d] += T(mu0) * h.c[d][q];
  }

  // -1/2 Ms m . B_demag (linear in m).
  GRIDSOLVE_HD double energy_density(const CellState<T>& c) const {
    T b[3] = {0, 0, 0};
    add(c, b);
    return linear_energy_density(c, b, -0.5);
  }
};

}  // namespace gridsolve::micromag
