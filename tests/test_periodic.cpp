// Periodic sides in the Poisson problem layer: every iterative solver and the transform
// solver, second order on periodic manufactured solutions, and the same answer from all.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gridsolve/exec/ghost_exchange.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "test_helpers.hpp"

namespace gridsolve {
namespace {

struct PeriodicCase {
  std::string solver;
  int dims;
  std::string sides;        // periodic | periodic-all
  std::string coefficient;  // constant | variable
  int n_coarse;
};

std::string name_of(const ::testing::TestParamInfo<PeriodicCase>& info) {
  const PeriodicCase& c = info.param;
  std::string s = c.solver + "_" + std::to_string(c.dims) + "D_" + c.sides + "_" + c.coefficient;
  for (char& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

ProblemSpec periodic_problem(const PeriodicCase& c, int level) {
  ModelProblem m;
  m.dims = c.dims;
  m.n = (c.n_coarse - 1) * (1 << level) + 1;
  m.sides = c.sides;
  m.coefficient = c.coefficient;
  return make_model_problem(m);
}

// The image nodes (the last node of each periodic axis) hold the first node's value.
template <class T>
void expect_images_match(const Discretization<T>& d, const ProblemSpec& spec) {
  const Field<T> host = d.u.copy_to(Device::cpu);
  const FieldView<const T> v = host.cview();
  const Grid& g = spec.grid;
  for (int a = 0; a < g.dims; ++a) {
    if (spec.boundaries[2 * a].kind != BoundaryKind::periodic) continue;
    for (int k = 0; k < g.n[2]; ++k)
      for (int j = 0; j < g.n[1]; ++j)
        for (int i = 0; i < g.n[0]; ++i) {
          int p[3] = {i, j, k};
          if (p[a] != g.n[a] - 1) continue;
          p[a] = 0;
          ASSERT_EQ(v(i, j, k), v(p[0], p[1], p[2])) << "axis " << a << " at " << i << "," << j;
        }
  }
}

class PeriodicSides : public ::testing::TestWithParam<PeriodicCase> {};

TEST_P(PeriodicSides, ObservedOrderIsTwo) {
  const PeriodicCase& c = GetParam();
  double errors[2];
  for (int level = 0; level < 2; ++level) {
    const ProblemSpec spec = periodic_problem(c, level);
    auto s = testing::solve_spec<double>(spec, c.solver, 1e-11);
    ASSERT_TRUE(s.report.converged) << s.report.reason;
    expect_images_match(s.d, spec);
    errors[level] = testing::max_error(spec, s.d);
    ASSERT_GT(errors[level], 0.0);
  }
  const double order = std::log2(errors[0] / errors[1]);
  EXPECT_NEAR(order, 2.0, 0.12) << "errors " << errors[0] << " -> " << errors[1];
}

INSTANTIATE_TEST_SUITE_P(
    Manufactured, PeriodicSides,
    ::testing::Values(PeriodicCase{"jacobi", 2, "periodic", "constant", 17},
                      PeriodicCase{"gauss-seidel", 2, "periodic", "constant", 17},
                      PeriodicCase{"sor", 2, "periodic", "constant", 33},
                      PeriodicCase{"sor", 2, "periodic", "variable", 33},
                      PeriodicCase{"rb-gs", 2, "periodic", "constant", 17},
                      PeriodicCase{"cg", 2, "periodic", "variable", 33},
                      PeriodicCase{"pcg", 2, "periodic-all", "constant", 33},
                      PeriodicCase{"mg", 2, "periodic", "constant", 33},
                      PeriodicCase{"mg", 2, "periodic", "variable", 33},
                      PeriodicCase{"mg", 2, "periodic-all", "variable", 33},
                      PeriodicCase{"mgcg", 2, "periodic-all", "constant", 33},
                      PeriodicCase{"mgcg", 3, "periodic", "variable", 17},
                      PeriodicCase{"mgcg-mixed", 2, "periodic", "variable", 33},
                      PeriodicCase{"mg", 3, "periodic-all", "constant", 17},
                      PeriodicCase{"fft", 2, "periodic", "constant", 33},
                      PeriodicCase{"fft", 2, "periodic-all", "constant", 33},
                      PeriodicCase{"fft", 3, "periodic", "constant", 17}),
    name_of);

// Every solver reaches the same discrete solution: the periodic operator is one operator.
TEST(PeriodicSides, SolversAgreeOnOneGrid) {
  const PeriodicCase c{"fft", 2, "periodic", "constant", 33};
  const ProblemSpec spec = periodic_problem(c, 0);
  auto reference = testing::solve_spec<double>(spec, "fft", 1e-12);
  ASSERT_TRUE(reference.report.converged) << reference.report.reason;
  const std::vector<double> ref = reference.d.u.to_vector();
  for (const char* solver : {"sor", "cg", "mg", "mgcg", "jacobi"}) {
    auto s = testing::solve_spec<double>(spec, solver, 1e-12);
    ASSERT_TRUE(s.report.converged) << solver << ": " << s.report.reason;
    const std::vector<double> u = s.d.u.to_vector();
    double diff = 0;
    for (std::size_t n = 0; n < u.size(); ++n) diff = std::max(diff, std::abs(u[n] - ref[n]));
    EXPECT_LT(diff, 1e-9) << solver;
  }
}

// A multigrid cycle on a periodic problem reduces the error as fast as on a Dirichlet one:
// the coarse levels see the wrapped couplings.
TEST(PeriodicSides, MultigridConvergesAtItsUsualRate) {
  ModelProblem m;
  m.n = 129;
  m.sides = "periodic-all";
  m.coefficient = "variable";
  const ProblemSpec spec = make_model_problem(m);
  auto s = testing::solve_spec<double>(spec, "mg", 1e-10);
  ASSERT_TRUE(s.report.converged) << s.report.reason;
  EXPECT_LT(s.report.iterations, 14) << "convergence factor " << s.report.convergence_factor;
}

// An odd period coarsens too (one short coarse interval across the side), so the cycle
// does not stall on a level that cannot halve (it reduced the residual by only 0.8 a
// cycle when such an axis stopped coarsening). Red-black colours meet across an odd
// period, so the rate stays below that of even periods (about 0.15 against 0.04).
TEST(PeriodicSides, MultigridCoarsensAnOddPeriod) {
  for (int n : {100, 129}) {
    ModelProblem m;
    m.n = n;  // periods 99 and 128
    m.sides = "periodic";
    m.coefficient = "variable";
    const ProblemSpec spec = make_model_problem(m);
    auto s = testing::solve_spec<double>(spec, "mg", 1e-10);
    ASSERT_TRUE(s.report.converged) << s.report.reason;
    EXPECT_LT(s.report.convergence_factor, n == 100 ? 0.2 : 0.06) << "n " << n;
    auto c = testing::solve_spec<double>(spec, "cg", 1e-10);
    EXPECT_LT(testing::max_difference(s.d.u, c.d.u), 1e-8) << "n " << n;
  }
}

// A large singular problem: the coarsest level must be treated as singular, not as the
// nearly singular matrix that round-off lumped onto its diagonal level after level (its
// inverse returned corrections with a huge constant part: stalled at 8e-3 from 1025^2).
TEST(PeriodicSides, LargeAllPeriodicProblemConverges) {
  ModelProblem m;
  m.n = 1025;
  m.sides = "periodic-all";
  m.coefficient = "variable";
  const ProblemSpec spec = make_model_problem(m);
  auto s = testing::solve_spec<double>(spec, "mg", 1e-9);
  ASSERT_TRUE(s.report.converged) << s.report.reason;
  EXPECT_LT(s.report.iterations, 12) << "factor " << s.report.convergence_factor;
}

TEST(PeriodicSides, OneSidedPeriodicIsRefused) {
  ModelProblem m;
  m.n = 9;
  ProblemSpec spec = make_model_problem(m);
  spec.boundaries[x_low].kind = BoundaryKind::periodic;
  try {
    (void)assemble<double>(spec, Device::cpu);
    FAIL() << "accepted a periodic x_low with a Dirichlet x_high";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs both sides periodic"), std::string::npos)
        << e.what();
  }
}

TEST(PeriodicSides, BunemanRefusesPeriodicSides) {
  ModelProblem m;
  m.n = 17;
  m.sides = "periodic";
  const ProblemSpec spec = make_model_problem(m);
  try {
    (void)testing::solve_spec<double>(spec, "buneman", 1e-10);
    FAIL() << "buneman accepted a periodic side";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("periodic side"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gridsolve
