// Micromagnetics on ranks: a system split in slabs (the demag convolution's) steps to the
// state one process reaches on the same problem (the average m, the energies, every cell's
// m, the adaptive step sizes), for a film with demag, exchange, anisotropy and a field, a 3D
// box periodic along x, relax and minimize; on 1-4 CPU ranks with uneven slabs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gridsolve/apps/micromag/llg_stepper.hpp"
#include "gridsolve/apps/micromag/micromag_system.hpp"
#include "gridsolve/exec/communicator.hpp"

namespace gridsolve::micromag {
namespace {

Region permalloy() {
  Region r;
  r.ms = 8.0e5;
  r.aex = 1.3e-11;
  r.alpha = 0.05;
  r.ku1 = 2e3;
  r.anis_u = {0.3, 1.0, 0.2};
  return r;
}

// A tilted, non-uniform start (every rank alike), a cut-out in one corner.
std::array<std::vector<double>, 3> start(const MicromagProblem& p) {
  const auto n = p.mesh.n;
  std::array<std::vector<double>, 3> m;
  for (auto& c : m) c.resize(std::size_t(p.mesh.cells()));
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        const std::size_t q = (std::size_t(k) * n[1] + j) * n[0] + i;
        m[0][q] = 1.0 + 0.3 * std::sin(0.4 * i);
        m[1][q] = 0.2 + 0.1 * std::cos(0.7 * j + 0.2 * k);
        m[2][q] = 0.05 * (k + 1);
      }
  return m;
}

MicromagProblem with_hole(MicromagProblem p) {
  const auto n = p.mesh.n;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1] / 3; ++j)
      for (int i = 0; i < n[0] / 4; ++i) p.region[(std::size_t(k) * n[1] + j) * n[0] + i] = vacuum;
  return p;
}

struct State {
  std::array<double, 3> m{};
  double energy = 0, torque = 0, last_dt = 0;
  std::int64_t steps = 0;
  std::array<std::vector<double>, 3> cells;  // rank 0 only on ranks
};

State run(const MicromagProblem& p, bool whole, StepperOptions o, int steps,
          const std::string& how) {
  MicromagSystem<double> sys(p, Device::cpu, demag::FftMode::skip_zeros, whole);
  sys.set_m(start(p));
  const std::array<double, 3> b{-24.6e-3, 4.3e-3, 1e-3};
  const FieldOfTime field = [b](double) { return b; };
  State s;
  if (how == "relax") {
    s.steps = relax(sys, b, o, steps).steps;
  } else if (how == "minimize") {
    s.steps = minimize(sys, b, 1e-12, steps).iterations;
  } else {
    LlgStepper<double> st(sys, o);
    double t = 0;
    for (int i = 0; i < steps; ++i) st.step(t, 1e-9, field);
    s.steps = st.steps();
    s.last_dt = st.last_dt();
  }
  s.m = sys.average_m();
  s.energy = sys.energies(b).total();
  s.torque = sys.max_torque(b);
  const auto host = sys.m().to_host();
  for (int c = 0; c < 3; ++c) s.cells[c].assign(host[c].begin(), host[c].end());
  return s;
}

void expect_same(const MicromagProblem& p, StepperOptions o, int steps, const std::string& how) {
  const Communicator& comm = Communicator::world();
  const State one = run(p, true, o, steps, how), many = run(p, false, o, steps, how);
  const std::string what = how + " on " + std::to_string(p.mesh.n[0]) + "x" +
                           std::to_string(p.mesh.n[1]) + "x" + std::to_string(p.mesh.n[2]) +
                           ", " + std::to_string(comm.size()) + " ranks";
  EXPECT_EQ(one.steps, many.steps) << what;
  EXPECT_NEAR(one.last_dt, many.last_dt, 1e-9 * one.last_dt) << what;
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(one.m[c], many.m[c], 1e-11) << what;
  EXPECT_NEAR(one.energy, many.energy, 1e-10 * std::abs(one.energy)) << what;
  EXPECT_NEAR(one.torque, many.torque, 1e-9 * one.torque) << what;
  if (comm.is_root()) {
    ASSERT_EQ(many.cells[0].size(), one.cells[0].size()) << what;
    double worst = 0;
    for (int c = 0; c < 3; ++c)
      for (std::size_t q = 0; q < one.cells[c].size(); ++q)
        worst = std::max(worst, std::abs(one.cells[c][q] - many.cells[c][q]));
    EXPECT_LT(worst, 1e-10) << what;
  } else {
    EXPECT_TRUE(many.cells[0].empty()) << "only rank 0 holds the gathered m";
  }
  // The run moved m: a comparison worth making.
  EXPECT_GT(std::abs(one.m[1] - 0.2), 1e-4) << what;
}

TEST(MpiMicromag, FilmStepsLikeOneProcess) {
  const MicromagProblem p = with_hole(MicromagProblem::box({40, 13, 1}, {4e-9, 4e-9, 3e-9}, permalloy()));
  StepperOptions o;
  o.method = Method::rk45;
  o.tolerance = 1e-6;
  expect_same(p, o, 40, "rk45");
  o.method = Method::heun;
  o.dt = 2e-14;
  expect_same(p, o, 30, "heun");
}

TEST(MpiMicromag, PeriodicBoxStepsLikeOneProcess) {
  MicromagProblem p = MicromagProblem::box({10, 9, 11}, {3e-9, 3e-9, 3e-9}, permalloy());
  p.mesh.periodic = {true, false, true};
  p.mesh.images = 1;
  StepperOptions o;
  o.method = Method::rk4;
  o.dt = 5e-14;
  expect_same(p, o, 20, "rk4");
}

TEST(MpiMicromag, RelaxAndMinimizeLikeOneProcess) {
  const MicromagProblem p = MicromagProblem::box({24, 10, 1}, {5e-9, 5e-9, 3e-9}, permalloy());
  StepperOptions o;
  o.tolerance = 1e-5;
  expect_same(p, o, 200, "relax");
  expect_same(p, o, 60, "minimize");
}

}  // namespace
}  // namespace gridsolve::micromag
