// What a term of the effective field sees: the material of a region, the cell it is
// evaluated at (m there, its region), and the inputs every term is made from. Each term
// (exchange_field.hpp, uniaxial_anisotropy.hpp, ...) is a small GRIDSOLVE_HD functor with
//   static constexpr unsigned bit;                        which Term flag selects it
//   static X make(const TermInputs<T>&);                  built once per kernel launch
//   void add(const CellState<T>&, T b[3]) const;          adds its B (T) at the cell
//   double energy_density(const CellState<T>&) const;     its energy density (J/m^3)
// and effective_field.hpp lists them; the fused kernels compose the list.
#pragma once
#include <array>
#include <cstdint>

#include "gridsolve/apps/micromag/micromag_problem.hpp"
#include "gridsolve/core/field_view.hpp"
#include "gridsolve/core/hd.hpp"
#include "gridsolve/transform/demag_layout.hpp"

namespace gridsolve::micromag {

// The material of one region as the loop bodies read it (unit axes, c3 = c1 x c2).
template <class T>
struct MaterialParams {
  T ms, aex, alpha, ku1, kc1, dind, dbulk, temp, pol, xi;
  T u[3], c1[3], c2[3], c3[3];
  T fixed[3], lambda, eps_prime, flt;  // Slonczewski: unit p, Lambda, eps', thickness (0: off)
  // Derived once per run, so that no loop body divides: 1 / Ms (0 without material) and the
  // LLG prefactor's 1 / (1 + alpha^2).
  T inv_ms, inv_1_alpha2;
};

// Which terms a field evaluation includes.
enum Term : unsigned {
  term_exchange = 1,
  term_anisotropy = 2,
  term_zeeman = 4,
  term_demag = 8,
  term_dmi = 16,
  term_all = 31,     // the deterministic terms: fields, energies, torques, relax, minimize
  term_thermal = 32  // the thermal field: LLG slopes only
};

// One magnetic cell (Ms > 0) as the terms see it. q and rq are its elements in m's and in
// the region map's storage (the neighbours lie at fixed strides from them, ghosts included).
template <class T>
struct CellState {
  int i, j, k;
  std::int64_t q, rq;
  T m[3];
  int region;
  const MaterialParams<T>& p;
};

// The thermal field's draw: the run's seed, the step's number and size (dt 0: none).
struct ThermalDraw {
  std::uint64_t seed = 0, step = 0;
  double dt = 0;
};

// What the terms are made from: m and the region map with their ghosts filled (exchange
// reads the neighbours there), the materials, the mesh, the demag output, B_ext, the
// thermal draw.
template <class T>
struct TermInputs {
  FieldView<const T> m;
  FieldView<const std::uint8_t> region;
  const MaterialParams<T>* mat;
  const Mesh* mesh;
  const demag::PaddedVector<T>* demag;  // null without demag
  std::array<double, 3> bext;
  ThermalDraw thermal;
  std::array<double, 3> current{};  // J, A/m^2 (spin-transfer torque)
};

// m and the region map at fixed strides from a cell, for the terms that read neighbours
// (exchange, DMI, the spin-transfer torque): the components and the map at global (0, 0, 0)
// and their strides per axis; beyond the box's sides they read the ghosts.
template <class T>
struct CellNeighbours {
  const T* m[3];
  const std::uint8_t* region;
  std::int64_t step[3], rstep[3];

  static CellNeighbours make(const TermInputs<T>& in) {
    CellNeighbours n{};
    for (int c = 0; c < 3; ++c) n.m[c] = in.m.data + c * in.m.component;
    n.region = in.region.data;
    n.step[0] = 1, n.step[1] = in.m.pitch, n.step[2] = in.m.plane;
    n.rstep[0] = 1, n.rstep[1] = in.region.pitch, n.rstep[2] = in.region.plane;
    return n;
  }
};

// A material constant between two regions: the harmonic mean (mumax3's rule; 0 with a 0).
template <class T>
GRIDSOLVE_HD T harmonic_mean(T a, T b) {
  return (a + b) != T(0) ? T(2) * a * b / (a + b) : T(0);
}

// The energy density of a term whose energy is `factor` Ms m . B (linear in m: -1/2;
// Zeeman: -1), from its field b at the cell.
template <class T>
GRIDSOLVE_HD double linear_energy_density(const CellState<T>& c, const T b[3], double factor) {
  double s = 0;
  for (int d = 0; d < 3; ++d) s += double(c.m[d]) * double(b[d]);
  return factor * double(c.p.ms) * s;
}

}  // namespace gridsolve::micromag
