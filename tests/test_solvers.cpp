// Every solver reaches the same discrete solution; stopping rules and failures behave.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gridsolve/core/error.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"
#include "gridsolve/solve/jacobi.hpp"

#include <random>
#include "test_helpers.hpp"

namespace gridsolve {
namespace {

ProblemSpec random_problem(int dims, int n) {
  return testing::random_poisson(dims, n, 7);
}

ProblemSpec general_problem(int dims, int n) {
  ModelProblem m;
  m.dims = dims;
  m.n = n;
  m.sides = "neumann";
  m.mask = "hole";
  m.coefficient = "variable";
  return make_model_problem(m);
}

class SolversAgree : public ::testing::TestWithParam<int> {};

TEST_P(SolversAgree, OnRandomRhsUniformOperator) {
  const ProblemSpec spec = random_problem(GetParam(), GetParam() == 2 ? 41 : 13);
  auto ref = testing::solve_spec<double>(spec, "gauss-seidel", 1e-12);
  ASSERT_TRUE(ref.report.converged) << ref.report.reason;
  const double scale = testing::max_abs(ref.d.u);
  ASSERT_GT(scale, 0.0);
  for (const char* name : {"jacobi", "sor", "rb-gs"}) {
    auto s = testing::solve_spec<double>(spec, name, 1e-12);
    EXPECT_TRUE(s.report.converged) << name << ": " << s.report.reason;
    EXPECT_LT(testing::max_difference(s.d.u, ref.d.u) / scale, 1e-9) << name;
  }
}

TEST_P(SolversAgree, OnGeneralOperatorWithMaskAndNeumann) {
  const ProblemSpec spec = general_problem(GetParam(), GetParam() == 2 ? 33 : 11);
  auto ref = testing::solve_spec<double>(spec, "gauss-seidel", 1e-12);
  ASSERT_TRUE(ref.report.converged) << ref.report.reason;
  EXPECT_EQ(ref.report.kernel, "sequential");
  const double scale = testing::max_abs(ref.d.u);
  for (const char* name : {"jacobi", "sor", "rb-gs"}) {
    auto s = testing::solve_spec<double>(spec, name, 1e-12);
    EXPECT_TRUE(s.report.converged) << name << ": " << s.report.reason;
    EXPECT_LT(testing::max_difference(s.d.u, ref.d.u) / scale, 1e-9) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(Dims, SolversAgree, ::testing::Values(2, 3));

TEST(Solvers, FloatMatchesDoubleToSinglePrecision) {
  const ProblemSpec spec = random_problem(2, 33);
  auto d = testing::solve_spec<double>(spec, "sor", 1e-12);
  auto f = testing::solve_spec<float>(spec, "sor", 1e-5);
  ASSERT_TRUE(f.report.converged) << f.report.reason;
  const std::vector<double> a = d.d.u.to_vector();
  const std::vector<float> b = f.d.u.to_vector();
  double m = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    m = std::max(m, std::abs(a[i] - double(b[i])));
    scale = std::max(scale, std::abs(a[i]));
  }
  EXPECT_LT(m / scale, 1e-4);
}

TEST(Solvers, OptimalOmegaBeatsGaussSeidelByFar) {
  const ProblemSpec spec = random_problem(2, 129);
  auto sor = testing::solve_spec<double>(spec, "sor", 1e-8);
  auto gs = testing::solve_spec<double>(spec, "rb-gs", 1e-8);
  ASSERT_TRUE(sor.report.converged && gs.report.converged);
  // Theory: about N vs N^2 / (something); at 129 the gap is well over 10x.
  EXPECT_LT(sor.report.iterations * 10, gs.report.iterations);
  EXPECT_NEAR(sor.report.omega, 2.0 / (1.0 + std::sin(M_PI / 128)), 1e-9);
}

TEST(Solvers, UpdateRuleStopsOnMaxChange) {
  const ProblemSpec spec = random_problem(2, 33);
  auto s = assemble<double>(spec, Device::cpu);
  SolveOptions o;
  o.rule = StopRule::update;
  o.tolerance = 1e-6;
  o.check_every = 1;
  const SolveReport r = make_solver<double>("jacobi")->solve(s.op, s.u, o);
  ASSERT_TRUE(r.converged) << r.reason;
  EXPECT_LT(r.last_update, 1e-6);
  EXPECT_EQ(r.history.back().second, r.last_update);
}

TEST(Solvers, IterationCapIsReportedAsNotConverged) {
  const ProblemSpec spec = random_problem(2, 65);
  auto s = assemble<double>(spec, Device::cpu);
  SolveOptions o;
  o.tolerance = 1e-12;
  o.max_iterations = 7;
  o.check_every = 5;
  const SolveReport r = make_solver<double>("jacobi")->solve(s.op, s.u, o);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 7);
  EXPECT_NE(r.reason.find("iteration cap"), std::string::npos) << r.reason;
}

TEST(Solvers, OmegaOutsideRangeIsRejected) {
  const ProblemSpec spec = random_problem(2, 17);
  auto s = assemble<double>(spec, Device::cpu);
  SolveOptions o;
  o.omega = 2.3;
  try {
    make_solver<double>("sor")->solve(s.op, s.u, o);
    FAIL() << "omega 2.3 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("omega must be in (0, 2), got 2.3"), std::string::npos)
        << e.what();
  }
}

TEST(Solvers, UnknownSolverNamesTheChoices) {
  try {
    make_solver<double>("multigridd");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("jacobi"), std::string::npos);
  }
}

TEST(ConvergenceMonitor, StopsOnNaN) {
  SolveOptions o;
  SolveReport r;
  ConvergenceMonitor m(o, r);
  EXPECT_FALSE(m.check(1, 1.0));
  EXPECT_TRUE(m.check(2, std::numeric_limits<double>::quiet_NaN()));
  EXPECT_FALSE(r.converged);
  EXPECT_NE(r.reason.find("NaN"), std::string::npos);
}

TEST(ConvergenceMonitor, StopsOnDivergence) {
  SolveOptions o;
  SolveReport r;
  ConvergenceMonitor m(o, r);
  bool stopped = false;
  double v = 1;
  for (int i = 1; i < 1000 && !stopped; ++i) stopped = m.check(i, v *= 1.5);
  EXPECT_TRUE(stopped);
  EXPECT_NE(r.reason.find("diverged"), std::string::npos) << r.reason;
}

TEST(ConvergenceMonitor, StopsOnStagnation) {
  SolveOptions o;
  o.tolerance = 1e-20;
  SolveReport r;
  ConvergenceMonitor m(o, r);
  bool stopped = false;
  int i = 1;
  for (; i < 10000 && !stopped; ++i)
    stopped = m.check(i, 1e-7 * (1 + 0.1 * ((i * 7919) % 13) / 13.0));
  EXPECT_TRUE(stopped);
  EXPECT_LT(i, 1000);
  EXPECT_NE(r.reason.find("stagnated"), std::string::npos) << r.reason;
}

// CG's residual on a 1025^2 Poisson problem: down to a dip at check 700, then 300 checks
// above it before it falls again. A stationary method's rule calls that stagnation; a
// Krylov method's does not, and still stops on a real plateau.
TEST(ConvergenceMonitor, KrylovResidualMaySitAboveAnEarlyDip) {
  auto run = [](bool krylov, bool falls_again, SolveReport& r) {
    SolveOptions o;
    o.tolerance = 1e-10;
    o.max_iterations = 100000;
    ConvergenceMonitor m(o, r);
    if (krylov) m.set_non_monotone();
    for (int i = 1; i < 100000; ++i) {
      double v = 0.1 * std::pow(0.99, i);
      if (i == 700) v *= 0.5;                            // the dip
      if (i > 700) v = 0.1 * std::pow(0.99, 700) * 1.2;  // the plateau above it
      if (falls_again && i > 1000) v = 0.1 * std::pow(0.99, i - 300);
      if (m.check(i, v)) return i;
    }
    return 0;
  };
  SolveReport stationary, krylov, plateau;
  EXPECT_EQ(run(false, true, stationary), 900) << stationary.reason;  // 200 checks past the dip
  EXPECT_NE(stationary.reason.find("stagnated"), std::string::npos);
  run(true, true, krylov);
  EXPECT_TRUE(krylov.converged) << krylov.reason;
  EXPECT_EQ(run(true, false, plateau), 1400) << plateau.reason;  // 700 checks past the dip
  EXPECT_NE(plateau.reason.find("stagnated"), std::string::npos) << plateau.reason;
}

TEST(ConvergenceMonitor, SlowSteadyDecreaseIsNotStagnation) {
  SolveOptions o;
  o.tolerance = 1e-20;
  o.max_iterations = 5000;
  SolveReport r;
  ConvergenceMonitor m(o, r);
  bool stopped = false;
  double v = 1;
  int i = 1;
  for (; i <= 5000 && !stopped; ++i) stopped = m.check(i, v *= (1 - 1e-7));
  EXPECT_NE(r.reason.find("iteration cap"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace gridsolve

namespace gridsolve {
namespace {

// The CPU's streaming-store sweep (uniform 2D operator, no mask) against the generic
// loop body, which an all-free mask selects for the same operator.
template <class T>
void streaming_sweep_matches_generic() {
  ModelProblem m;
  m.n = 77;  // odd row length: exercises the unaligned head and the scalar tail
  m.rhs = "random";
  ProblemSpec spec = make_model_problem(m);
  spec.f_nodes.clear();
  spec.f = Expression::value(0.75);
  auto fast = assemble<T>(spec, Device::cpu);
  ASSERT_TRUE(fast.op.uniform && fast.op.mask.empty() && fast.op.rhs.empty());
  auto slow = assemble<T>(spec, Device::cpu);
  slow.op.mask = Field<std::uint8_t>(spec.grid, Device::cpu);  // every node free
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> d(-1, 1);
  const FieldView<T> u = fast.u.view();
  for (int j = 1; j < m.n - 1; ++j)
    for (int i = 1; i < m.n - 1; ++i) u(i, j, 0) = T(d(rng));
  slow.u.copy_from(fast.u);
  Field<T> a = fast.u.copy_to(Device::cpu), b = fast.u.copy_to(Device::cpu);
  jacobi_sweep_generic<T>(fast.op, fast.u, a, T(0.9));
  jacobi_sweep_generic<T>(slow.op, slow.u, b, T(0.9));
  EXPECT_LT(testing::max_difference(a, b), sizeof(T) == 8 ? 1e-14 : 1e-6);
  EXPECT_GT(testing::max_abs(a), 0.1);
}

TEST(JacobiCpu, StreamingSweepMatchesGenericDouble) {
  streaming_sweep_matches_generic<double>();
}
TEST(JacobiCpu, StreamingSweepMatchesGenericFloat) {
  streaming_sweep_matches_generic<float>();
}

}  // namespace
}  // namespace gridsolve
