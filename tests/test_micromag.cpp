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

template <class T>
double spin_error(Method method, double alpha, double tol, double dt) {
  MicromagSystem<T> sys(single_spin(alpha), Device::cpu);
  const double th0 = 1.2, B = 0.1;
  sys.set_m({std::vector<double>{std::sin(th0)}, {0.0}, {std::cos(th0)}});
  StepperOptions o;
  o.method = method;
  o.tolerance = tol;
  o.dt = dt;
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
