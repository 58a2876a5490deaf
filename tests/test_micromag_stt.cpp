// The spin-transfer torques. Zhang-Li moving a domain wall. With no hard axis (no demag, one
// dimension) the wall keeps its profile and turns freely about z, and the collective
// coordinates are exact: it moves at v = (1 + alpha xi) / (1 + alpha^2) u, u = -Pol muB J /
// (e Ms (1 + xi^2)) the spins' drift velocity (against the current): u itself at xi = alpha
// (Thiaville et al. 2005), u / (1 + alpha^2) at xi = 0.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gridsolve/apps/micromag/llg_stepper.hpp"
#include "gridsolve/apps/micromag/micromag_config.hpp"
#include "gridsolve/apps/micromag/micromag_system.hpp"
#include "gridsolve/apps/micromag/slonczewski_torque.hpp"
#include "gridsolve/apps/micromag/zhang_li_torque.hpp"
#include "gridsolve/core/error.hpp"

using namespace gridsolve;
using namespace gridsolve::micromag;

namespace {

// LLG (RK45 to `tolerance`) with no applied field for `time`: the currents act alone.
void run_llg(MicromagSystem<double>& sys, double time, double tolerance) {
  StepperOptions o;
  o.tolerance = tolerance;
  LlgStepper<double> st(sys, o);
  const FieldOfTime b = [](double) { return std::array<double, 3>{0, 0, 0}; };
  double t = 0;
  while (t < time * (1 - 1e-12)) st.step(t, time - t, b);
}

// A Neel wall m = (sech s, 0, -tanh s), s = (x - x0) / Delta, in a 200 nm strip (periodic
// in y, no demag, uniaxial along z), J along x for `time`: the wall's position before and
// after, from <m_z> = -(L - 2 x_w) / L.
std::array<double, 2> wall_positions(double d_nm, double xi, double time) {
  Region r;
  r.ms = 8e5;
  r.aex = 1.3e-11;
  r.ku1 = 5e5;
  r.anis_u = {0, 0, 1};
  r.alpha = 0.1;
  r.xi = xi;
  r.pol = 1;
  const double L = 200e-9, d = d_nm * 1e-9, delta = std::sqrt(r.aex / r.ku1);
  const int n = int(std::lround(L / d));
  MicromagProblem p = MicromagProblem::box({n, 1, 1}, {d, 1e-9, 1e-9}, r);
  p.demag = false;
  p.mesh.periodic = {false, true, false};
  p.current = {1e12, 0, 0};
  MicromagSystem<double> sys(p, Device::cpu);
  std::array<std::vector<double>, 3> m;
  for (auto& c : m) c.resize(std::size_t(n));
  for (int i = 0; i < n; ++i) {
    const double s = ((i + 0.5) * d - L / 2) / delta;
    m[0][std::size_t(i)] = 1 / std::cosh(s);
    m[2][std::size_t(i)] = -std::tanh(s);
  }
  sys.set_m(m);
  auto position = [&] { return L * (1 + sys.average_m()[2]) / 2; };
  const double before = position();
  run_llg(sys, time, 1e-7);
  return {before, position()};
}

}  // namespace

TEST(MicromagStt, WallMovesAtTheCollectiveCoordinatesVelocity) {
  const double time = 0.1e-9, alpha = 0.1;
  for (const double xi : {alpha, 0.0}) {
    const double u = -bohr_magneton * 1e12 / (elementary_charge * 8e5 * (1 + xi * xi));
    const double want = (1 + alpha * xi) / (1 + alpha * alpha) * u;
    double errors[2];
    int s = 0;
    for (const double d : {1.0, 0.5}) {
      const auto [before, after] = wall_positions(d, xi, time);
      const double v = (after - before) / time;
      errors[s++] = std::abs(v / want - 1);
      EXPECT_LT(v, 0.0) << "the wall moves against the current";
    }
    // Measured at xi = alpha: 0.65% at 1 nm cells, 0.16% at 0.5 nm (second order).
    EXPECT_LT(errors[1], 2.5e-3) << "xi " << xi << ": " << errors[0] << " " << errors[1];
    EXPECT_GT(std::log2(errors[0] / errors[1]), 1.5)
        << "xi " << xi << ": " << errors[0] << " " << errors[1];
  }
}

TEST(MicromagStt, ConfigReadsPolXiAndJ) {
  const MicromagConfig c = parse_micromag_config(
      "[mesh]\ncells = [4, 4, 1]\nsize = [8e-9, 8e-9, 2e-9]\n"
      "[material]\nMs = 8e5\nA = 1.3e-11\nalpha = 0.1\nPol = 0.5\nxi = 0.05\n"
      "[field]\nJ = [1e12, 0, 0]\n[[stage]]\nkind = \"run\"\ntime = 1e-12\n",
      "stt.toml");
  EXPECT_EQ(c.problem.regions[0].pol, 0.5);
  EXPECT_EQ(c.problem.regions[0].xi, 0.05);
  EXPECT_EQ(c.problem.current[0], 1e12);
  try {
    (void)parse_micromag_config(
        "[mesh]\ncells = [4, 4, 1]\nsize = [8e-9, 8e-9, 2e-9]\n"
        "[material]\nMs = 8e5\nA = 1.3e-11\nalpha = 0.1\nPol = 2\n[[stage]]\nkind = \"relax\"\n",
        "bad.toml");
    ADD_FAILURE() << "Pol = 2 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Pol' must be in [-1, 1]"), std::string::npos) << e.what();
  }
}

namespace {

// One cell (no demag, no field) under the Slonczewski torque of a fixed layer along z,
// from m at polar angle th0 in the x-z plane: m after `time`, integrated to 1e-9.
std::array<double, 3> slonczewski_macrospin(const Region& r, double jz, double th0, double time) {
  MicromagProblem p = MicromagProblem::box({1, 1, 1}, {2e-9, 2e-9, 2e-9}, r);
  p.demag = false;
  p.current = {0, 0, jz};
  MicromagSystem<double> sys(p, Device::cpu);
  sys.set_m({std::vector<double>{std::sin(th0)}, {0.0}, {std::cos(th0)}});
  run_llg(sys, time, 1e-9);
  return sys.average_m();
}

}  // namespace

TEST(MicromagStt, SlonczewskiMacrospinFollowsTheExactSolution) {
  // p = z, u = m . p. The m x (p x m) term turns m towards p and p x m turns it about p:
  //   du/dt = g beta (eps(u) - alpha eps') (1 - u^2),  dphi/dt = g beta (eps' - alpha eps(u)),
  // g = gamma / (1 + alpha^2), beta = hbar J / (e d Ms), eps = Pol L^2 / ((L^2 + 1) + (L^2 - 1) u).
  // Lambda = 1 (eps = Pol / 2): u = tanh(k t + atanh u0), phi = w t, both exact.
  Region r;
  r.ms = 8e5;
  r.alpha = 0.1;
  r.pol = 0.6;
  r.fixed_layer = {0, 0, 2};  // normalized by the library
  r.epsilon_prime = 0.05;
  const double jz = 1e11, th0 = 2.5, time = 1e-9;
  const double beta = reduced_planck * jz / (elementary_charge * 2e-9 * r.ms);
  const double g = gamma_ll / (1 + r.alpha * r.alpha);
  {
    const auto m = slonczewski_macrospin(r, jz, th0, time);
    const double k = g * beta * (r.pol / 2 - r.alpha * r.epsilon_prime);
    const double w = g * beta * (r.epsilon_prime - r.alpha * r.pol / 2);
    EXPECT_NEAR(m[2], std::tanh(k * time + std::atanh(std::cos(th0))), 1e-7);
    EXPECT_NEAR(std::atan2(m[1], m[0]), w * time, 1e-7);
    EXPECT_GT(m[2], std::cos(th0) + 0.5) << "J > 0 turned m towards the fixed layer";
  }
  // Lambda = 2, eps' = 0: the implicit solution
  //   (L^2 + 1) atanh(u) - (L^2 - 1) / 2 ln(1 - u^2) = g beta Pol L^2 t + const.
  r.lambda = 2;
  r.epsilon_prime = 0;
  const auto m = slonczewski_macrospin(r, jz, th0, time);
  const double l2 = r.lambda * r.lambda;
  auto lhs = [&](double u) {
    return (l2 + 1) * std::atanh(u) - (l2 - 1) / 2 * std::log(1 - u * u);
  };
  EXPECT_NEAR(lhs(m[2]) - lhs(std::cos(th0)), g * beta * r.pol * l2 * time, 1e-6);
  // Reversed current: m turns away from p.
  const auto away = slonczewski_macrospin(r, -jz, 0.5, time);
  EXPECT_LT(away[2], std::cos(0.5) - 0.1);
}

TEST(MicromagStt, ConfigReadsTheSlonczewskiKeys) {
  const MicromagConfig c = parse_micromag_config(
      "[mesh]\ncells = [4, 4, 2]\nsize = [8e-9, 8e-9, 4e-9]\n"
      "[material]\nMs = 8e5\nA = 1.3e-11\nalpha = 0.01\nPol = 0.5669\nLambda = 2\n"
      "epsilon_prime = 0.1\nfixed_layer = [1, 0, 0]\nfree_layer_thickness = 3e-9\n"
      "[field]\nJ = [0, 0, 1e11]\n[[stage]]\nkind = \"run\"\ntime = 1e-12\n",
      "inline");
  const Region& r = c.problem.regions[0];
  EXPECT_EQ(r.lambda, 2);
  EXPECT_EQ(r.epsilon_prime, 0.1);
  EXPECT_EQ(r.fixed_layer[0], 1);
  EXPECT_EQ(r.free_layer_thickness, 3e-9);
  EXPECT_EQ(c.problem.current[2], 1e11);
}
