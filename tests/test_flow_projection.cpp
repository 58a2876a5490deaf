// The projection (fractional-step) scheme: Taylor-Green orders in space and time, the
// transform pressure solver against multigrid, the steady cavity against SIMPLE's (the
// same discrete steady equations), and the inputs it refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "gridsolve/apps/flow/flow_case.hpp"
#include "gridsolve/apps/flow/flow_post.hpp"
#include "gridsolve/apps/flow/flow_solver.hpp"
#include "gridsolve/core/error.hpp"

using namespace gridsolve;
using namespace gridsolve::flow;

namespace {

constexpr double two_pi = 2 * std::numbers::pi;

// The periodic box [0, 2 pi]^2 of n^2 cells, projection with the given pressure solver.
FlowCase projection_box(int n, const std::string& pressure_solver, double nu = 0.05) {
  FlowCase c;
  c.cells = {n, n, 1};
  c.hi = {two_pi, two_pi, 1};
  for (int s = 0; s < 4; ++s) c.sides[std::size_t(s)].type = SideType::periodic;
  c.nu = nu;
  c.coupling = Coupling::projection;
  c.time_scheme = TimeScheme::rk3;
  c.convection = Convection::central;
  c.pressure_solver = pressure_solver;
  c.pressure_tolerance = 1e-12;
  c.validate();
  return c;
}

// The vortex, carried by a uniform flow (U, V): u = U + sin(x - U t) cos(y - V t) F, ...
void start_vortex(FlowSolver<double>& s, double U, double V) {
  s.set_velocity(0, [=](double x, double y, double) { return U + std::sin(x) * std::cos(y); });
  s.set_velocity(1, [=](double x, double y, double) { return V - std::cos(x) * std::sin(y); });
}

// Every face value of component c (the solver's storage, ghosts included).
std::vector<double> faces(const FlowSolver<double>& s, int c) {
  return s.velocity(c).copy_to(Device::cpu).to_vector();
}

// L2 error of u against the standing vortex decayed to time T.
double vortex_error(const FlowSolver<double>& s, double nu, double T) {
  const double F = std::exp(-2 * nu * T);
  const Field<double> h = s.velocity(0).copy_to(Device::cpu);
  const auto v = h.cview();
  const MacGrid& g = s.grid();
  const auto n = g.cells();
  double sum = 0;
  for (int j = 0; j < n[1]; ++j)
    for (int i = 0; i < n[0]; ++i) {
      const double e = v(i, j, 0) - std::sin(g.xf(0, i)) * std::cos(g.xc(1, j)) * F;
      sum += e * e;
    }
  return std::sqrt(sum / double(n[0] * n[1]));
}

double rms_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum / double(a.size()));
}

}  // namespace

TEST(FlowProjection, TaylorGreenSecondOrderInSpaceDivergenceFree) {
  double e[3], div = 0;
  const int sizes[3] = {16, 32, 64};
  for (int r = 0; r < 3; ++r) {
    const FlowCase c = projection_box(sizes[r], "fft");
    FlowSolver<double> s(c, Device::cpu);
    start_vortex(s, 0, 0);
    const double T = 1.0, h = two_pi / sizes[r];
    const int steps = int(std::ceil(T / (0.5 * h)));
    for (int k = 0; k < steps; ++k) {
      s.runge_kutta_step(T / steps, false);
      div = std::max(div, s.max_divergence());
    }
    EXPECT_NEAR(s.time(), T, 1e-12);
    e[r] = vortex_error(s, c.nu, T);
  }
  const double p1 = std::log2(e[0] / e[1]), p2 = std::log2(e[1] / e[2]);
  std::printf(
      "Taylor-Green, projection + rk3: L2 errors %.3e %.3e %.3e, orders %.2f %.2f; max "
      "div %.1e\n",
      e[0], e[1], e[2], p1, p2, div);
  EXPECT_GT(p1, 1.9);
  EXPECT_GT(p2, 1.9);
  EXPECT_LT(e[2], 1e-4);
  // The transform solve is exact: every stage leaves the velocity divergence-free to
  // round-off.
  EXPECT_LT(div, 1e-11);
}

TEST(FlowProjection, CarriedTaylorGreenIsThirdOrderInTime) {
  // The vortex carried across the box: convection does not reduce to a pressure gradient.
  // On one grid the spatial error is the same at every step, so the differences between
  // runs at dt, dt/2 and dt/4 are the temporal error: their ratio is 2^p. On a periodic box
  // the projection commutes with the stages, so the Runge-Kutta's third order survives.
  auto run = [](int steps) {
    FlowSolver<double> s(projection_box(32, "fft"), Device::cpu);
    start_vortex(s, 1.0, 0.5);
    for (int k = 0; k < steps; ++k) s.runge_kutta_step(0.4 / steps, false);
    return faces(s, 0);
  };
  const auto u1 = run(10), u2 = run(20), u4 = run(40);
  const double p = std::log2(rms_difference(u1, u2) / rms_difference(u2, u4));
  std::printf("carried Taylor-Green, rk3: temporal order %.2f\n", p);
  EXPECT_GT(p, 2.7);
  EXPECT_LT(p, 3.5);
}

TEST(FlowProjection, TransformAndMultigridPressureAgree) {
  // The same steps with the pressure by transforms and by multigrid to 1e-12: the same
  // velocity, and the pressure of the vortex p = (cos 2x + cos 2y) / 4 F^2.
  std::vector<double> u[2], p[2];
  const char* solvers[2] = {"fft", "mg"};
  for (int r = 0; r < 2; ++r) {
    FlowSolver<double> s(projection_box(32, solvers[r]), Device::cpu);
    start_vortex(s, 0.3, 0);
    for (int k = 0; k < 10; ++k) s.runge_kutta_step(0.05, k == 9);
    u[r] = faces(s, 0);
    p[r] = s.pressure().copy_to(Device::cpu).to_vector();
  }
  const double du = rms_difference(u[0], u[1]);
  // Pressures are defined up to a constant: compare after removing each one's mean.
  for (auto& q : p) {
    double m = 0;
    for (double v : q) m += v;
    m /= double(q.size());
    for (double& v : q) v -= m;
  }
  const double dp = rms_difference(p[0], p[1]);
  double peak = 0;
  for (double v : p[0]) peak = std::max(peak, std::abs(v));
  std::printf("fft against mg: velocity rms %.2e, pressure rms %.2e (peak %.3f)\n", du, dp, peak);
  EXPECT_LT(du, 1e-10);
  EXPECT_LT(dp, 1e-8);
  EXPECT_GT(peak, 0.2);  // a real pressure field, not zeros
}

TEST(FlowProjection, SteadyCavityEqualsSimple) {
  // Marched to a steady state, the projection scheme satisfies the same discrete steady
  // equations as SIMPLEC's converged iteration: R(u) = grad p, div u = 0.
  FlowCase c = cavity_case(100, 16);
  c.convection = Convection::tvd;
  c.coupling = Coupling::simplec;
  c.pressure_tolerance = 1e-10;
  FlowSolver<double> simple(c, Device::cpu);
  int it = 1;
  for (; it <= 20000; ++it) {
    const StepReport r = simple.simple_iteration(it % 20 == 0);
    if (r.measured && r.change < 1e-12) break;
  }
  ASSERT_LE(it, 20000);
  c.coupling = Coupling::projection;
  c.time_scheme = TimeScheme::rk3;
  c.validate();
  FlowSolver<double> proj(c, Device::cpu);
  const double dt = proj.cfl_time_step(0.5) > 0 ? std::min(proj.cfl_time_step(0.5), 0.02) : 0.02;
  double change = 1;
  int steps = 0;
  while (change > 1e-11 && steps < 20000) {
    ++steps;
    const StepReport r = proj.runge_kutta_step(dt, steps % 50 == 0);
    if (r.measured) change = r.change / dt;
  }
  ASSERT_LT(steps, 20000);
  const std::vector<double> a = faces(simple, 0), b = faces(proj, 0);
  double diff = 0, peak = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    peak = std::max(peak, std::abs(a[i]));
  }
  std::printf(
      "steady cavity Re 100, 16^2: projection after %d steps against SIMPLEC: max |du| "
      "%.2e (peak %.3f), max div %.1e\n",
      steps, diff, peak, proj.max_divergence());
  EXPECT_LT(diff, 1e-7);
  EXPECT_GT(peak, 0.5);  // the row below the lid: a real flow
  EXPECT_LT(proj.max_divergence(), 1e-8);
}

TEST(FlowProjection, RefusesWhatItCannotStep) {
  FlowCase c = projection_box(8, "fft");
  c.time_scheme = TimeScheme::bdf2;
  EXPECT_THROW(c.validate(), Error);
  c = projection_box(8, "fft");
  c.coupling = Coupling::piso;  // rk3 with piso
  EXPECT_THROW(c.validate(), Error);
  // The transform solver takes only the periodic uniform box without obstacles.
  c = cavity_case(100, 8);
  c.coupling = Coupling::projection;
  c.time_scheme = TimeScheme::rk3;
  c.pressure_solver = "fft";
  try {
    c.validate();
    ADD_FAILURE() << "fft on a walled cavity was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("every side periodic"), std::string::npos) << e.what();
  }
  // The step the explicit stages allow: the CFL and the diffusion number.
  c = projection_box(16, "fft", 1.0);
  FlowSolver<double> s(c, Device::cpu);
  start_vortex(s, 0, 0);
  const double h = two_pi / 16;
  EXPECT_NEAR(s.cfl_time_step(0.5), FlowCase::max_diffusion_number / (1.0 * 8 / (h * h)), 1e-12);
}

TEST(FlowProjection, LeanRowsEqualTheGeneralRow) {
  // The lean rows of a uniform grid against the general row, every convection scheme, on the
  // periodic box (the carried vortex) and in the walled cavity (lean inside, general by the
  // walls).
  for (const Convection scheme : {Convection::upwind, Convection::hybrid, Convection::tvd,
                                  Convection::quick, Convection::central}) {
    for (int walled = 0; walled < 2; ++walled) {
      FlowCase c = walled ? cavity_case(400, 24) : projection_box(24, "fft");
      c.coupling = Coupling::projection;
      c.time_scheme = TimeScheme::rk3;
      c.convection = scheme;
      c.validate();
      std::vector<double> u[2];
      for (int lean = 0; lean < 2; ++lean) {
        FlowSolver<double> s(c, Device::cpu);
        s.set_lean_rows(lean == 1);
        if (!walled) start_vortex(s, 1.0, 0.5);
        for (int k = 0; k < 8; ++k) s.runge_kutta_step(walled ? 0.01 : 0.05, false);
        u[lean] = faces(s, 1);
      }
      double diff = 0, peak = 0;
      for (std::size_t i = 0; i < u[0].size(); ++i) {
        diff = std::max(diff, std::abs(u[0][i] - u[1][i]));
        peak = std::max(peak, std::abs(u[0][i]));
      }
      EXPECT_GT(peak, 0.01) << to_string(scheme);
      EXPECT_LT(diff, 1e-13 * peak) << to_string(scheme) << (walled ? " cavity" : " box");
    }
  }
}
