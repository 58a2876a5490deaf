// The thermal field of the stochastic LLG equation (Brown): at each step every cell draws
// B = eta sqrt(2 alpha kB T / (gamma Ms V dt)), eta three independent standard normals,
// held through the step's stages (Heun's two evaluations see the same field: the
// Stratonovich reading, whose fixed points are the Boltzmann distribution, as in mumax3).
// The numbers come from a counter-based generator keyed by the seed, counted by the cell's
// global indices and the step: the same field on the CPU, the GPU and any number of ranks.
// It has no energy; it enters only LLG slopes (never relax, minimize, the torque reported
// or the saved B_eff).
#pragma once
#include "gridsolve/apps/micromag/field_term.hpp"
#include "gridsolve/core/counter_rng.hpp"

namespace gridsolve::micromag {

template <class T>
struct ThermalField {
  static constexpr unsigned bit = term_thermal;
  std::uint64_t seed, step;
  double scale;  // 2 kB / (gamma V dt); 0: no thermal field this evaluation

  static ThermalField make(const TermInputs<T>& in) {
    ThermalField f{};
    f.seed = in.thermal.seed;
    f.step = in.thermal.step;
    f.scale = in.thermal.dt > 0
                  ? 2 * boltzmann / (gamma_ll * in.mesh->cell_volume() * in.thermal.dt)
                  : 0.0;
    return f;
  }

  GRIDSOLVE_HD void add(const CellState<T>& c, T b[3]) const {
    if (scale == 0 || c.p.temp == T(0) || c.p.ms == T(0)) return;
    const T sigma = T(sqrt(scale * double(c.p.alpha) * double(c.p.temp) / double(c.p.ms)));
    T eta[3];
    standard_normals3(std::uint32_t(c.i), std::uint32_t(c.j), std::uint32_t(c.k),
                      std::uint32_t(step), seed ^ (step >> 32) * 0x9E3779B97F4A7C15ull, eta);
    for (int k = 0; k < 3; ++k) b[k] += sigma * eta[k];
  }

  GRIDSOLVE_HD double energy_density(const CellState<T>&) const { return 0.0; }
};

}  // namespace gridsolve::micromag
