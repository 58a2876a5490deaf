// Micromagnetics on the CPU: exact single-spin dynamics (Larmor precession, Gilbert
// relaxation), analytic energies (exchange spiral, anisotropies, Zeeman, prism demag),
// Stoner-Wohlfarth equilibrium by relax and minimize.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "demag_reference.hpp"
#include "gridsolve/apps/micromag/llg_stepper.hpp"
#include "gridsolve/apps/micromag/micromag_system.hpp"

using namespace gridsolve;
using namespace gridsolve::micromag;

namespace {

Region permalloy(double alpha = 0.02) {
  Region r;
  r.ms = 8e5;
  r.aex = 1.3e-11;
  r.alpha = alpha;
  return r;
}

MicromagProblem single_spin(double alpha) {
  MicromagProblem p = MicromagProblem::box({1, 1, 1}, {2e-9, 2e-9, 2e-9}, permalloy(alpha));
  p.demag = false;
  return p;
}

// Exact precession about B = (0, 0, B) from m = (sin th0, 0, cos th0): the azimuth turns at
// gamma B / (1 + a^2), tan(theta / 2) decays at a gamma B / (1 + a^2).
std::array<double, 3> exact_spin(double th0, double a, double B, double t) {
  const double w = gamma_ll * B / (1 + a * a);
  const double th = 2 * std::atan(std::tan(th0 / 2) * std::exp(-a * w * t));
  const double ph = w * t;
  return {std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), std::cos(th)};
}

// The largest error of <m> at ten times in 1 ns; max_dt > 0 caps the step, `rejected`
// (when given) gets the steps the error control refused.
template <class T>
double spin_error(Method method, double alpha, double tol, double dt, double max_dt = 0,
                  std::int64_t* rejected = nullptr) {
  MicromagSystem<T> sys(single_spin(alpha), Device::cpu);
  const double th0 = 1.2, B = 0.1;
  sys.set_m({std::vector<double>{std::sin(th0)}, {0.0}, {std::cos(th0)}});
  StepperOptions o;
  o.method = method;
  o.tolerance = tol;
  o.dt = dt;
  if (max_dt > 0) o.max_dt = max_dt;
  LlgStepper<T> st(sys, o);
  const FieldOfTime field = [B](double) { return std::array<double, 3>{0, 0, B}; };
  double t = 0, worst = 0;
  const double end = 1e-9;
  for (int out = 1; out <= 10; ++out) {
    const double target = end * out / 10;
    while (t < target * (1 - 1e-12)) st.step(t, target - t, field);
    const auto m = sys.average_m();
    const auto e = exact_spin(th0, alpha, B, t);
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(m[c] - e[c]));
  }
  if (rejected) *rejected = st.rejected();
  return worst;
}

}  // namespace

TEST(MicromagSpin, LarmorPrecessionIsExact) {
  EXPECT_LT(spin_error<double>(Method::rk45, 0.0, 1e-10, 1e-14), 1e-7);
  EXPECT_LT(spin_error<double>(Method::heun, 0.0, 1e-7, 1e-14), 1e-4);
  EXPECT_LT(spin_error<double>(Method::rk4, 0.0, 1, 2e-13), 1e-6);
}

TEST(MicromagSpin, GilbertRelaxationRateIsExact) {
  EXPECT_LT(spin_error<double>(Method::rk45, 0.1, 1e-10, 1e-14), 1e-7);
  EXPECT_LT(spin_error<double>(Method::rk4, 0.1, 1, 2e-13), 1e-6);
  EXPECT_LT(spin_error<float>(Method::rk45, 0.1, 1e-5, 1e-14), 1e-3);
}

TEST(MicromagSpin, RungeKuttaFourIsFourthOrder) {
  const double e1 = spin_error<double>(Method::rk4, 0.1, 1, 4e-13);
  const double e2 = spin_error<double>(Method::rk4, 0.1, 1, 2e-13);
  EXPECT_NEAR(std::log2(e1 / e2), 4.0, 0.3);
}

TEST(MicromagSpin, HeunIsSecondOrder) {
  // Steps of a fixed size (a tolerance no error reaches, max_dt = dt): the predictor made
  // in the first evaluation's pass and the corrector in the second's.
  const double e1 = spin_error<double>(Method::heun, 0.1, 1, 4e-13, 4e-13);
  const double e2 = spin_error<double>(Method::heun, 0.1, 1, 2e-13, 2e-13);
  EXPECT_NEAR(std::log2(e1 / e2), 2.0, 0.1);
}

TEST(MicromagSpin, HeunRetriesRedoThePredictor) {
  // A first step far too large is refused several times; each retry must make its
  // predictor from the kept k1 at the smaller step. The accepted step equals Heun's step of
  // that size done by hand (a retry that kept the refused step's predictor stays within
  // the error control's tolerance, so only the step itself shows it).
  const double alpha = 0.1, th0 = 1.2, B = 0.1;
  MicromagSystem<double> sys(single_spin(alpha), Device::cpu);
  const std::array<double, 3> m0{std::sin(th0), 0.0, std::cos(th0)};
  sys.set_m({std::vector<double>{m0[0]}, {m0[1]}, {m0[2]}});
  StepperOptions o;
  o.method = Method::heun;
  o.tolerance = 1e-7;
  o.dt = o.max_dt = 2e-11;
  LlgStepper<double> st(sys, o);
  double t = 0;
  const double h = st.step(t, 1, [B](double) { return std::array<double, 3>{0, 0, B}; });
  EXPECT_GT(st.rejected(), 2);
  EXPECT_LT(h, 2e-11 / 8);
  using V = std::array<double, 3>;
  const auto cross = [](const V& a, const V& b) {
    return V{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  };
  const auto slope = [&](const V& m) {
    const V mxb = cross(m, {0, 0, B}), mxmxb = cross(m, mxb);
    V d;
    for (int c = 0; c < 3; ++c)
      d[c] = -gamma_ll / (1 + alpha * alpha) * (mxb[c] + alpha * mxmxb[c]);
    return d;
  };
  const auto unit = [](V v) {
    const double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (double& x : v) x /= n;
    return v;
  };
  const V k1 = slope(m0);
  V p, next;
  for (int c = 0; c < 3; ++c) p[c] = m0[c] + h * k1[c];
  const V k2 = slope(unit(p));
  for (int c = 0; c < 3; ++c) next[c] = m0[c] + h / 2 * (k1[c] + k2[c]);
  next = unit(next);
  const auto m = sys.m().to_host();
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(m[c][0], next[c], 1e-13);
}

TEST(MicromagEnergy, ExchangeSpiral) {
  // m turns by k dx per cell along x: E = sum over neighbour pairs of
  // A |m_j - m_i|^2 / dx^2 V = (n - 1) A 2 (1 - cos(k dx)) / dx^2 V, which tends to the
  // continuum A k^2 L S as dx -> 0.
  const int n = 64;
  const double dx = 1e-9, k = 2 * std::numbers::pi / (40 * dx);
  MicromagProblem p = MicromagProblem::box({n, 2, 1}, {dx, 1.5e-9, 2e-9}, permalloy());
  p.demag = false;
  MicromagSystem<double> sys(p, Device::cpu);
  std::array<std::vector<double>, 3> m;
  for (auto& c : m) c.resize(2 * n);
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < n; ++i) {
      m[0][j * n + i] = std::cos(k * i * dx);
      m[1][j * n + i] = std::sin(k * i * dx);
      m[2][j * n + i] = 0;
    }
  sys.set_m(m);
  const Energies e = sys.energies({0, 0, 0});
  const double V = dx * 1.5e-9 * 2e-9;
  const double exact = 2 * (n - 1) * 1.3e-11 * 2 * (1 - std::cos(k * dx)) / (dx * dx) * V;
  EXPECT_NEAR(e.exchange, exact, 1e-12 * exact);
  const double continuum = 1.3e-11 * k * k * (n - 1) * dx * 2 * 1.5e-9 * 2e-9;
  EXPECT_NEAR(e.exchange, continuum, 1e-2 * continuum);
  EXPECT_EQ(e.anisotropy, 0.0);
  EXPECT_EQ(e.demag, 0.0);
}

TEST(MicromagEnergy, ExchangeSpiralAcrossPeriodicSides) {
  // Whole turns across a periodic box: every cell has two neighbours along the spiral, so
  // E = n A 2 (1 - cos(k d)) / d^2 V per row, exactly, and A k^2 L S in the continuum.
  for (int axis : {0, 1}) {
    const int n = 40, turns = 3;
    const double d = 1e-9, k = 2 * std::numbers::pi * turns / (n * d);
    std::array<int, 3> cells{2, 2, 1};
    cells[axis] = n;
    std::array<double, 3> size{1.5e-9, 1.5e-9, 2e-9};
    size[axis] = d;
    MicromagProblem p = MicromagProblem::box(cells, size, permalloy());
    p.demag = false;
    p.mesh.periodic[axis] = true;
    MicromagSystem<double> sys(p, Device::cpu);
    std::array<std::vector<double>, 3> m;
    for (auto& c : m) c.resize(2 * n);
    for (int q = 0; q < 2 * n; ++q) {
      const int i = axis == 0 ? q % n : q / 2;
      m[0][q] = std::cos(k * i * d);
      m[1][q] = 0;
      m[2][q] = std::sin(k * i * d);
    }
    sys.set_m(m);
    const Energies e = sys.energies({0, 0, 0});
    const double V = d * 1.5e-9 * 2e-9;
    const double exact = 2 * n * 1.3e-11 * 2 * (1 - std::cos(k * d)) / (d * d) * V;
    EXPECT_NEAR(e.exchange, exact, 1e-12 * exact) << "axis " << axis;
    const double continuum = 1.3e-11 * k * k * n * d * 2 * 1.5e-9 * 2e-9;
    EXPECT_NEAR(e.exchange, continuum, 2e-2 * continuum);
    // The torque-free check: a whole-turn spiral is an exchange eigenstate, B_ex parallel
    // to m everywhere (no side where the wrap is missing).
    CellVectors<double> b(Device::cpu, p.mesh.n);
    sys.effective_field({0, 0, 0}, term_exchange, b);
    const auto bh = b.to_host(), mh = sys.m().to_host();
    double worst = 0, scale = 0;
    for (std::size_t q = 0; q < bh[0].size(); ++q) {
      const double t = bh[0][q] * mh[2][q] - bh[2][q] * mh[0][q];
      worst = std::max(worst, std::abs(t));
      scale = std::max(scale, std::hypot(bh[0][q], bh[2][q]));
    }
    EXPECT_LT(worst, 1e-12 * scale);
  }
}

TEST(MicromagEnergy, AnisotropyAndZeeman) {
  Region r = permalloy();
  r.ku1 = 5e5;
  r.anis_u = {0, 0, 2};  // normalized by the system
  MicromagProblem p = MicromagProblem::box({3, 2, 2}, {1e-9, 1e-9, 1e-9}, r);
  p.demag = false;
  MicromagSystem<double> sys(p, Device::cpu);
  const double th = 0.7, V = 12e-27;
  std::array<std::vector<double>, 3> m;
  m[0].assign(12, std::sin(th));
  m[1].assign(12, 0.0);
  m[2].assign(12, std::cos(th));
  sys.set_m(m);
  const std::array<double, 3> B{0.01, -0.02, 0.03};
  Energies e = sys.energies(B);
  EXPECT_NEAR(e.anisotropy, -5e5 * std::cos(th) * std::cos(th) * V, 1e-12 * 5e5 * V);
  EXPECT_NEAR(e.zeeman, -8e5 * (0.01 * std::sin(th) + 0.03 * std::cos(th)) * V, 1e-12 * 8e5 * V);
  EXPECT_NEAR(e.exchange, 0.0, 1e-30);

  Region c = permalloy();
  c.kc1 = 4e4;
  MicromagProblem q = MicromagProblem::box({1, 1, 1}, {1e-9, 1e-9, 1e-9}, c);
  q.demag = false;
  MicromagSystem<double> cubic(q, Device::cpu);
  cubic.set_m({std::vector<double>{1.0}, {1.0}, {1.0}});
  EXPECT_NEAR(cubic.energies({0, 0, 0}).anisotropy, 4e4 / 3 * 1e-27, 1e-12 * 4e4 * 1e-27);
  cubic.set_m({std::vector<double>{0.0}, {1.0}, {0.0}});
  EXPECT_NEAR(cubic.energies({0, 0, 0}).anisotropy, 0.0, 1e-40);
}

TEST(MicromagEnergy, UniformPrismDemagMatchesAharoni) {
  // 30 x 20 x 10 nm in 6 x 5 x 4 cells, magnetized along z, then along x.
  MicromagProblem p = MicromagProblem::box({6, 5, 4}, {5e-9, 4e-9, 2.5e-9}, permalloy());
  MicromagSystem<double> sys(p, Device::cpu);
  const std::int64_t n = 120;
  const double V = 30e-9 * 20e-9 * 10e-9, ms = 8e5;
  sys.set_m(
      {std::vector<double>(n, 0.0), std::vector<double>(n, 0.0), std::vector<double>(n, 1.0)});
  const double nzz = aharoni_nzz(15, 10, 5);
  EXPECT_NEAR(sys.energies({0, 0, 0}).demag, 0.5 * mu0 * nzz * ms * ms * V,
              1e-10 * mu0 * ms * ms * V);
  sys.set_m(
      {std::vector<double>(n, 1.0), std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)});
  const double nxx = aharoni_nzz(10, 5, 15);
  EXPECT_NEAR(sys.energies({0, 0, 0}).demag, 0.5 * mu0 * nxx * ms * ms * V,
              1e-10 * mu0 * ms * ms * V);
}

TEST(MicromagEquilibrium, StonerWohlfarthByRelaxAndMinimize) {
  // Easy axis z, field along x below the anisotropy field: sin(theta) = Ms B / (2 K).
  Region r = permalloy(0.5);
  r.ku1 = 5e5;
  MicromagProblem p = MicromagProblem::box({1, 1, 1}, {2e-9, 2e-9, 2e-9}, r);
  p.demag = false;
  const double B = 0.5;
  const double expected = std::asin(8e5 * B / (2 * 5e5));
  const std::array<double, 3> field{B, 0, 0};
  {
    MicromagSystem<double> sys(p, Device::cpu);
    sys.set_m({std::vector<double>{0.01}, {0.0}, {1.0}});
    const RelaxReport rr = relax(sys, field, StepperOptions{}, 200000);
    EXPECT_TRUE(rr.converged);
    const auto m = sys.average_m();
    EXPECT_NEAR(std::atan2(m[0], m[2]), expected, 1e-6);
    EXPECT_LT(rr.max_torque, 1e-6);
  }
  {
    MicromagSystem<double> sys(p, Device::cpu);
    sys.set_m({std::vector<double>{0.01}, {0.0}, {1.0}});
    const MinimizeReport mr = minimize(sys, field, 1e-10, 100000);
    EXPECT_TRUE(mr.converged);
    const auto m = sys.average_m();
    EXPECT_NEAR(std::atan2(m[0], m[2]), expected, 1e-6);
  }
}

namespace {

// B_ex by the neighbour sum written out with explicit wrap-round indices (no ghosts), from
// the problem's own description: the reference for the ghost-reading exchange term.
std::array<std::vector<double>, 3> exchange_reference(const MicromagProblem& p,
                                                      const std::array<std::vector<double>, 3>& m) {
  const Mesh& mesh = p.mesh;
  const int n[3] = {mesh.n[0], mesh.n[1], mesh.n[2]};
  auto at = [&](int i, int j, int k) { return (std::size_t(k) * n[1] + j) * n[0] + i; };
  auto ms = [&](std::size_t q) { return p.region[q] == vacuum ? 0.0 : p.regions[p.region[q]].ms; };
  std::array<std::vector<double>, 3> b;
  for (auto& c : b) c.assign(m[0].size(), 0.0);
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        const std::size_t q = at(i, j, k);
        if (ms(q) <= 0) continue;
        const double a = p.regions[p.region[q]].aex;
        double s[3] = {0, 0, 0};
        for (int axis = 0; axis < 3; ++axis)
          for (int step : {-1, 1}) {
            int x[3] = {i, j, k};
            x[axis] += step;
            if (x[axis] < 0 || x[axis] >= n[axis]) {
              if (!mesh.periodic[axis]) continue;
              x[axis] = (x[axis] + n[axis]) % n[axis];
            }
            const std::size_t q2 = at(x[0], x[1], x[2]);
            if (ms(q2) <= 0) continue;
            const double a2 = p.regions[p.region[q2]].aex;
            const double aij = p.region[q2] == p.region[q] ? a : 2 * a * a2 / (a + a2);
            const double w = 1 / (mesh.cell[axis] * mesh.cell[axis]);
            for (int c = 0; c < 3; ++c) s[c] += aij * w * (m[c][q2] - m[c][q]);
          }
        for (int c = 0; c < 3; ++c) b[c][q] = 2 / ms(q) * s[c];
      }
  return b;
}

MicromagProblem two_regions_with_holes(std::array<int, 3> n, std::array<bool, 3> periodic) {
  Region r = permalloy();
  MicromagProblem p = MicromagProblem::box(n, {3e-9, 2.5e-9, 2e-9}, r);
  Region r2 = r;
  r2.ms = 5e5;
  r2.aex = 0.7e-11;
  p.regions[3] = r2;
  p.regions[4] = Region{};  // Ms = 0: no material, like vacuum
  for (std::size_t q = 0; q < p.region.size(); ++q) {
    if (q % 7 == 3) p.region[q] = 3;
    if (q % 11 == 5) p.region[q] = vacuum;
    if (q % 13 == 6) p.region[q] = 4;
  }
  p.demag = false;
  p.mesh.periodic = periodic;
  return p;
}

std::array<std::vector<double>, 3> scattered_m(std::int64_t cells) {
  std::array<std::vector<double>, 3> m;
  for (auto& c : m) c.resize(cells);
  for (std::int64_t q = 0; q < cells; ++q) {
    const double th = 0.37 * q + 0.1, ph = 1.3 * q * q + 0.2;
    m[0][q] = std::sin(th) * std::cos(ph);
    m[1][q] = std::sin(th) * std::sin(ph);
    m[2][q] = std::cos(th);
  }
  return m;
}

}  // namespace

TEST(MicromagExchange, GhostsGiveTheWrappedNeighbourSum) {
  // Every combination of periodic axes on a 3D box, a film and boxes one cell thick along
  // x or y (periodic or not: a single cell adds nothing), with two regions, cells without
  // material and free sides: B_ex read through the ghosts equals the explicit sum.
  for (std::array<int, 3> n : {std::array<int, 3>{5, 4, 3}, {7, 6, 1}, {1, 5, 4}, {6, 1, 3}})
    for (int mask = 0; mask < 8; ++mask) {
      const std::array<bool, 3> periodic{(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0};
      const MicromagProblem p = two_regions_with_holes(n, periodic);
      MicromagSystem<double> sys(p, Device::cpu);
      sys.set_m(scattered_m(p.mesh.cells()));
      const auto m = sys.m().to_host();
      std::array<std::vector<double>, 3> md;
      for (int c = 0; c < 3; ++c) md[c].assign(m[c].begin(), m[c].end());
      const auto want = exchange_reference(p, md);
      CellVectors<double> b(Device::cpu, p.mesh.n);
      sys.effective_field({0, 0, 0}, term_exchange, b);
      const auto got = b.to_host();
      double worst = 0, scale = 0;
      for (int c = 0; c < 3; ++c)
        for (std::size_t q = 0; q < got[c].size(); ++q) {
          worst = std::max(worst, std::abs(got[c][q] - want[c][q]));
          scale = std::max(scale, std::abs(want[c][q]));
        }
      EXPECT_GT(scale, 0);
      EXPECT_LE(worst, 1e-14 * scale) << n[0] << "x" << n[1] << "x" << n[2] << " periodic "
                                      << periodic[0] << periodic[1] << periodic[2];
    }
}

TEST(MicromagExchange, RegionGhostsAreVacuumOnFreeSidesAndWrapOnPeriodicOnes) {
  MicromagProblem p = two_regions_with_holes({5, 4, 3}, {true, false, false});
  p.region[0] = 3;  // cell (0, 0, 0)
  p.region[4] = 0;  // cell (4, 0, 0)
  MicromagSystem<double> sys(p, Device::cpu);
  const GhostSides& s = sys.ghost_sides();
  EXPECT_EQ(s.face[0], GhostRule::periodic);
  EXPECT_EQ(s.face[1], GhostRule::periodic);
  for (int f = 2; f < 6; ++f) EXPECT_EQ(s.face[f], GhostRule::keep);
  const FieldView<const std::uint8_t> r = sys.region().cview();
  EXPECT_EQ(r(-1, 0, 0), 0);  // the last cell of the row
  EXPECT_EQ(r(5, 0, 0), 3);   // the first
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(r(i, -1, 0), vacuum);
    EXPECT_EQ(r(i, 4, 2), vacuum);
    EXPECT_EQ(r(i, 1, -1), vacuum);
    EXPECT_EQ(r(i, 1, 3), vacuum);
  }
  // A single layer is stored without z ghosts (z stays free); a periodic axis of one
  // cell wraps onto the cell itself (no exchange, and no free surface for DMI).
  MicromagSystem<double> film(two_regions_with_holes({6, 1, 1}, {true, true, true}), Device::cpu);
  EXPECT_EQ(film.region().dims(), 2);
  for (int f = 0; f < 4; ++f) EXPECT_EQ(film.ghost_sides().face[f], GhostRule::periodic);
  for (int f = 4; f < 6; ++f) EXPECT_EQ(film.ghost_sides().face[f], GhostRule::keep);
  const FieldView<const std::uint8_t> fr = film.region().cview();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(fr(i, -1, 0), fr(i, 0, 0));
}

TEST(MicromagDynamics, WholeTurnSpiralAcrossPeriodicSidesStaysPut) {
  // Exchange alone on whole turns across a periodic x: B_ex is parallel to m in every
  // cell, so m must not move. Every stage reads its own neighbours: a stage whose ghosts
  // were not filled would torque the end cells.
  const int n = 24, turns = 2;
  const double d = 1e-9, k = 2 * std::numbers::pi * turns / (n * d);
  MicromagProblem p = MicromagProblem::box({n, 1, 1}, {d, 2e-9, 2e-9}, permalloy(0.1));
  p.demag = false;
  p.mesh.periodic[0] = true;
  for (Method method : {Method::rk45, Method::heun, Method::rk4}) {
    MicromagSystem<double> sys(p, Device::cpu);
    std::array<std::vector<double>, 3> m;
    for (auto& c : m) c.resize(n);
    for (int i = 0; i < n; ++i) {
      m[0][i] = std::cos(k * i * d);
      m[2][i] = std::sin(k * i * d);
    }
    sys.set_m(m);
    StepperOptions o;
    o.method = method;
    o.dt = 5e-14;
    o.max_dt = 1e-13;  // within every method's stability bound for the fastest spin waves
    LlgStepper<double> st(sys, o);
    const FieldOfTime none = [](double) { return std::array<double, 3>{0, 0, 0}; };
    // 1 ps: a misread side would turn its cells by ~gamma |B_ex| t ~ 1 rad.
    double t = 0;
    while (t < 1e-12) st.step(t, 1e-12 - t, none);
    const auto after = sys.m().to_host();
    double worst = 0;
    for (int c = 0; c < 3; ++c)
      for (int i = 0; i < n; ++i) worst = std::max(worst, std::abs(after[c][i] - m[c][i]));
    EXPECT_LT(worst, 1e-10) << to_string(method);
  }
}
