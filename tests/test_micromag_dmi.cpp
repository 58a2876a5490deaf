// Interfacial DMI: the energy of a cycloid (the exact discrete sum and the continuum D k),
// the field's symmetry (B_dmi is minus the gradient of the energy: a finite difference of
// E along a random direction equals -Ms V m'.B), and the tilt of m at the free edges of a
// perpendicular strip against the one-dimensional solution of the DMI standard problem
// (Cortes-Ortuno et al. 2018), with its order of convergence.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <utility>
#include <vector>

#include "gridsolve/apps/micromag/llg_stepper.hpp"
#include "gridsolve/apps/micromag/micromag_system.hpp"

using namespace gridsolve;
using namespace gridsolve::micromag;

namespace {

// The DMI standard problem's material (Ms 0.86 MA/m, A 13 pJ/m, Ku 0.4 MJ/m^3 along z, no
// demag: its one-dimensional case) with D = 2 mJ/m^2, below the critical 4 sqrt(A K) / pi
// = 2.9 mJ/m^2 (at its 3 mJ/m^2 the uniform state is only metastable and a minimizer may
// leave it for the cycloid).
Region dmi_material() {
  Region r;
  r.ms = 0.86e6;
  r.aex = 13e-12;
  r.alpha = 0.5;
  r.dind = 2e-3;
  r.ku1 = 0.4e6;
  r.anis_u = {0, 0, 1};
  return r;
}

// A spiral m = (s sin kx in component c, cos kx along z) of `turns` turns across a row of n
// cells, periodic on the given axes, `rows` rows along y: its DMI energy against the exact
// discrete sum s D sin(k d) / d V for both chiralities s, and against the continuum s D k V
// to `continuum` (0: not checked). D is the region's dind or dbulk, the one set.
void expect_spiral_dmi_energy(const Region& r, int n, int turns, int rows,
                              std::array<double, 3> cell, std::array<bool, 3> periodic, int c,
                              double continuum) {
  const double d = cell[0], k = 2 * std::numbers::pi * turns / (n * d);
  const double D = r.dind != 0 ? r.dind : r.dbulk;
  MicromagProblem p = MicromagProblem::box({n, rows, 1}, cell, r);
  p.demag = false;
  p.mesh.periodic = periodic;
  MicromagSystem<double> sys(p, Device::cpu);
  const double volume = n * d * rows * cell[1] * cell[2];
  for (const double s : {1.0, -1.0}) {
    std::array<std::vector<double>, 3> m;
    for (auto& v : m) v.resize(std::size_t(rows * n));
    for (int q = 0; q < rows * n; ++q) {
      const double x = (q % n) * d;
      m[std::size_t(c)][std::size_t(q)] = s * std::sin(k * x);
      m[2][std::size_t(q)] = std::cos(k * x);
    }
    sys.set_m(m);
    const Energies e = sys.energies({0, 0, 0});
    const double exact = s * D * std::sin(k * d) / d * volume;
    EXPECT_NEAR(e.dmi, exact, 1e-12 * std::abs(exact)) << "chirality " << s;
    if (continuum > 0)
      EXPECT_NEAR(e.dmi, s * D * k * volume, continuum * D * k * volume) << "chirality " << s;
  }
}

}  // namespace

TEST(MicromagDmi, CycloidEnergyIsTheDiscreteSum) {
  // m = (s sin kx, 0, cos kx) across a periodic box: central differences give
  // E = s D sin(k d) / d V exactly (continuum: s D k); s = -1 is the other chirality.
  Region r = dmi_material();
  r.ku1 = 0;
  expect_spiral_dmi_energy(r, 48, 2, 3, {0.75e-9, 1e-9, 0.6e-9}, {true, true, false}, 0, 2e-2);
}

namespace {

// Exchange and DMI of a box with no free surface give a field linear in m and symmetric, so
// E(m) = -1/2 Ms V m.B is a quadratic form and its change along any direction u is -Ms V u.B
// (the central difference cancels the quadratic part). Checked at a random m along a random
// u. (At a free surface the boundary condition's neighbour is not symmetric in m: there B is
// the field of the boundary-value problem, as in mumax3 and OOMMF, not an energy gradient.)
void expect_field_is_minus_the_energy_gradient(const MicromagProblem& p, unsigned seed) {
  MicromagSystem<double> sys(p, Device::cpu);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uni(-1, 1);
  const std::size_t cells = p.region.size();
  std::array<std::vector<double>, 3> m, u;
  for (int c = 0; c < 3; ++c) {
    m[c].resize(cells);
    u[c].resize(cells);
    for (std::size_t q = 0; q < cells; ++q) m[c][q] = uni(rng), u[c][q] = uni(rng);
  }
  sys.set_m(m);
  const auto mh = sys.m().to_host();  // normalized
  const double V = p.mesh.cell_volume();
  // E at m + h u (and with slope, -Ms V u.B there) without renormalizing: set_m normalizes,
  // so the energy is evaluated through the field at the unnormalized vectors instead.
  auto energy_at = [&](double h, double* slope) {
    std::array<std::vector<double>, 3> v = mh;
    for (int c = 0; c < 3; ++c)
      for (std::size_t q = 0; q < cells; ++q) v[c][q] += h * u[c][q];
    sys.m().from_host(std::array<std::vector<double>, 3>(v));
    CellVectors<double> bv(Device::cpu, p.mesh.n);
    sys.effective_field({0, 0, 0}, term_dmi | term_exchange, bv);
    const auto bh = bv.to_host();
    double e = 0, g = 0;
    for (std::size_t q = 0; q < cells; ++q) {
      if (p.region[q] == vacuum) continue;
      const double ms = p.regions[p.region[q]].ms;
      for (int c = 0; c < 3; ++c) {
        e -= 0.5 * ms * V * v[c][q] * bh[c][q];
        g -= ms * V * u[c][q] * bh[c][q];
      }
    }
    if (slope) *slope = g;
    return e;
  };
  double slope = 0;
  energy_at(0, &slope);
  const double h = 1e-4;
  const double fd = (energy_at(h, nullptr) - energy_at(-h, nullptr)) / (2 * h);
  EXPECT_GT(std::abs(slope), 0.0);
  EXPECT_NEAR(fd, slope, 1e-9 * std::abs(slope));
}

}  // namespace

TEST(MicromagDmi, FieldIsMinusTheEnergyGradient) {
  // Periodic in-plane sides, two regions (D and A harmonic-meaned across them).
  Region r = dmi_material();
  r.ku1 = 0;
  MicromagProblem p = MicromagProblem::box({9, 7, 2}, {1e-9, 1.2e-9, 0.8e-9}, r);
  p.demag = false;
  p.mesh.periodic = {true, true, false};
  Region r2 = r;
  r2.dind = -1.2e-3;
  r2.aex = 9e-12;
  p.regions[2] = r2;
  for (std::size_t q = 0; q < p.region.size(); ++q)
    if (q % 5 == 1) p.region[q] = 2;
  expect_field_is_minus_the_energy_gradient(p, 7);
}

namespace {

// m_x of the relaxed strip at each cell along x, d nm cells; the energies of the uniform
// start and of the relaxed state.
std::vector<double> edge_profile(double d_nm, double length_nm, double* e_uniform = nullptr,
                                 double* e_relaxed = nullptr, bool bulk = false) {
  const int n = int(std::lround(length_nm / d_nm));
  Region r = dmi_material();
  if (bulk) std::swap(r.dind, r.dbulk);
  MicromagProblem p = MicromagProblem::box({n, 1, 1}, {d_nm * 1e-9, 1e-9, 1e-9}, r);
  p.demag = false;
  // One dimension: no edges along y (nor, for bulk DMI, whose boundary condition acts on
  // the top and bottom surfaces too, along z).
  p.mesh.periodic = {false, true, bulk};
  MicromagSystem<double> sys(p, Device::cpu);
  std::array<std::vector<double>, 3> m;
  for (auto& c : m) c.assign(std::size_t(n), 0.0);
  m[2].assign(std::size_t(n), 1.0);
  sys.set_m(m);
  if (e_uniform) *e_uniform = sys.energies({0, 0, 0}).total();
  m[0].assign(std::size_t(n), 0.01);  // off the symmetric point
  sys.set_m(m);
  const MinimizeReport report = minimize(sys, {0, 0, 0}, 1e-12, 200000);
  EXPECT_TRUE(report.converged) << d_nm << " nm cells";
  if (e_relaxed) *e_relaxed = sys.energies({0, 0, 0}).total();
  const auto mh = sys.m().to_host();
  std::vector<double> mx(static_cast<std::size_t>(n));
  // The component m turns toward: x (interfacial, Neel), y (bulk, Bloch).
  for (int i = 0; i < n; ++i) mx[std::size_t(i)] = mh[bulk ? 1 : 0][std::size_t(i)];
  return mx;
}

}  // namespace

TEST(MicromagDmi, EdgeTiltMatchesTheOneDimensionalSolution) {
  // A 100 nm strip: m turns toward x at both free ends, by opposite signs (one chirality).
  // In the continuum, A t'' = K sin t cos t with t' = -D / 2A at the edges; far from the
  // other end (17 exchange lengths away) tan(t / 2) = tan(t0 / 2) exp(-x / l), l =
  // sqrt(A / K), sin t0 = D / (2 sqrt(A K)). The cell-centred values converge to it.
  const Region r = dmi_material();
  const double l = std::sqrt(r.aex / r.ku1) * 1e9;  // nm
  const double t0 = std::asin(r.dind / (2 * std::sqrt(r.aex * r.ku1)));
  auto exact = [&](double x_nm) {
    return std::sin(2 * std::atan(std::tan(t0 / 2) * std::exp(-x_nm / l)));
  };
  double errors[2];
  int s = 0;
  for (const double d : {1.0, 0.5}) {
    double e_uniform = 0, e_relaxed = 0;
    const std::vector<double> mx = edge_profile(d, 100, &e_uniform, &e_relaxed);
    const int n = int(mx.size());
    // The tilt lowers the energy, with the chirality this D (> 0) favours: the natural
    // boundary condition t' = -D / 2A turns m toward +x at the low end. In the continuum
    // the DMI energy D (t(L) - t(0)) = -2 D t0 per unit area outweighs the exchange and
    // anisotropy the tilt costs, 4 sqrt(A K) (1 - cos t0).
    EXPECT_GT(mx[0], 0.3) << d;
    EXPECT_LT(e_relaxed, e_uniform) << d;
    EXPECT_NEAR(mx[0], -mx[std::size_t(n - 1)], 1e-9) << d;  // the two ends mirror
    // The middle stays along z: each edge's tail is down to 1e-5 there, 8.8 l away.
    EXPECT_LT(std::abs(mx[std::size_t(n / 2)]), 1e-4) << d;
    double worst = 0;
    for (int i = 0; i < n / 2; ++i)
      worst = std::max(worst, std::abs(std::abs(mx[std::size_t(i)]) - exact((i + 0.5) * d)));
    errors[s++] = worst;
  }
  const double order = std::log2(errors[0] / errors[1]);
  // Measured: 3.4e-4 and 9.6e-5 (second order: the boundary value is placed one cell out).
  EXPECT_LT(errors[0], 1e-3) << errors[0] << " " << errors[1];
  EXPECT_LT(errors[1], 2.5e-4) << errors[0] << " " << errors[1];
  EXPECT_GT(order, 1.6) << errors[0] << " " << errors[1];
}

TEST(MicromagDmi, BulkHelixEnergyIsTheDiscreteSum) {
  // m = (0, s sin kx, cos kx): curl m = s k m, E = s D sin(k d) / d V on the discrete grid
  // (continuum s D k). Periodic in x, y and z (a single layer periodic in z has no
  // surfaces there).
  Region r = dmi_material();
  r.ku1 = 0;
  std::swap(r.dind, r.dbulk);
  expect_spiral_dmi_energy(r, 40, 3, 2, {0.8e-9, 1e-9, 0.5e-9}, {true, true, true}, 1, 0);
}

TEST(MicromagDmi, BulkFieldIsMinusTheEnergyGradient) {
  // A box periodic on every axis (bulk DMI's boundary condition acts on every surface), two
  // regions with both kinds of D.
  Region r = dmi_material();
  r.ku1 = 0;
  r.dbulk = 1.5e-3;
  MicromagProblem p = MicromagProblem::box({7, 6, 4}, {1e-9, 1.1e-9, 0.9e-9}, r);
  p.demag = false;
  p.mesh.periodic = {true, true, true};
  Region r2 = r;
  r2.dbulk = -0.8e-3;
  r2.dind = 0.5e-3;
  r2.aex = 9e-12;
  p.regions[2] = r2;
  for (std::size_t q = 0; q < p.region.size(); ++q)
    if (q % 3 == 1) p.region[q] = 2;
  expect_field_is_minus_the_energy_gradient(p, 11);
}

TEST(MicromagDmi, BulkEdgeTwistMatchesTheOneDimensionalSolution) {
  // Bulk DMI twists m toward y at the free ends (a Bloch rotation in the y-z plane), with
  // the same one-dimensional solution as the interfacial tilt.
  const Region r = dmi_material();
  const double l = std::sqrt(r.aex / r.ku1) * 1e9;
  const double t0 = std::asin(r.dind / (2 * std::sqrt(r.aex * r.ku1)));
  auto exact = [&](double x_nm) {
    return std::sin(2 * std::atan(std::tan(t0 / 2) * std::exp(-x_nm / l)));
  };
  double errors[2];
  int s = 0;
  for (const double d : {1.0, 0.5}) {
    double e_uniform = 0, e_relaxed = 0;
    const std::vector<double> my = edge_profile(d, 100, &e_uniform, &e_relaxed, true);
    const int n = int(my.size());
    EXPECT_GT(std::abs(my[0]), 0.3) << d;
    EXPECT_NEAR(my[0], -my[std::size_t(n - 1)], 1e-9) << d;
    EXPECT_LT(e_relaxed, e_uniform) << d;
    double worst = 0;
    for (int i = 0; i < n / 2; ++i)
      worst = std::max(worst, std::abs(std::abs(my[std::size_t(i)]) - exact((i + 0.5) * d)));
    errors[s++] = worst;
  }
  EXPECT_LT(errors[1], 2.5e-4) << errors[0] << " " << errors[1];
  EXPECT_GT(std::log2(errors[0] / errors[1]), 1.6) << errors[0] << " " << errors[1];
}
