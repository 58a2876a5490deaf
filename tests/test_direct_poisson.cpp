// Buneman and transform solvers through the Solver interface: agreement with SOR on the
// same discrete problem, observed order 2, and clear refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gridsolve/core/error.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "test_helpers.hpp"

namespace gridsolve {
namespace {

// A rectangle with unequal spacings, constant k, random f and a non-zero Dirichlet side.
ProblemSpec rectangle(std::array<int, 3> n, int dims, BoundaryKind low_sides, std::uint64_t seed) {
  ProblemSpec s;
  s.grid = Grid::box(dims, n, {0, 0, 0}, {1.0, 0.7, 1.3});
  s.k = Expression::value(2.5);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  s.f_nodes.resize(std::size_t(s.grid.node_count()));
  for (double& v : s.f_nodes) v = u(rng);
  for (int f = 0; f < 2 * dims; ++f)
    s.boundaries[f].kind = (f % 2 == 0) ? low_sides : BoundaryKind::dirichlet;
  s.boundaries[x_high].g = Expression::parse("1 + y");
  return s;
}

double relative_difference(const Field<double>& a, const Field<double>& b) {
  return testing::max_difference(a, b) / testing::max_abs(b);
}

TEST(DirectPoisson, BunemanFftAndSorAgreeOnDirichletRectangles) {
  // 31 interior rows along y, then along x (the transposed orientation).
  for (const auto& n : {std::array<int, 3>{20, 33, 1}, std::array<int, 3>{33, 20, 1}}) {
    const ProblemSpec spec = rectangle(n, 2, BoundaryKind::dirichlet, 3);
    auto sor = testing::solve_spec<double>(spec, "sor", 1e-14);
    auto bcr = testing::solve_spec<double>(spec, "buneman");
    auto fft = testing::solve_spec<double>(spec, "fft");
    ASSERT_TRUE(bcr.report.converged) << bcr.report.reason;
    EXPECT_LT(bcr.report.relative_residual, 1e-12);
    EXPECT_LT(fft.report.relative_residual, 1e-12);
    EXPECT_LT(relative_difference(bcr.d.u, sor.d.u), 1e-10);
    EXPECT_LT(relative_difference(fft.d.u, sor.d.u), 1e-10);
    EXPECT_LT(relative_difference(bcr.d.u, fft.d.u), 1e-12);
  }
}

TEST(DirectPoisson, BunemanMatchesFftOnLargerGrids) {
  for (int n : {129, 257}) {
    ModelProblem m;
    m.n = n;
    m.rhs = "random";
    const ProblemSpec spec = make_model_problem(m);
    auto bcr = testing::solve_spec<double>(spec, "buneman");
    auto fft = testing::solve_spec<double>(spec, "fft");
    EXPECT_LT(relative_difference(bcr.d.u, fft.d.u), 1e-12) << n;
    EXPECT_LT(bcr.report.relative_residual, 1e-12) << n;
  }
}

TEST(DirectPoisson, FftAgreesWithSorOnNeumannSides) {
  for (int dims : {2, 3}) {
    const std::array<int, 3> n =
        dims == 2 ? std::array<int, 3>{23, 17, 1} : std::array<int, 3>{11, 9, 8};
    const ProblemSpec spec = rectangle(n, dims, BoundaryKind::neumann, 5);
    auto sor = testing::solve_spec<double>(spec, "sor", 1e-14);
    auto fft = testing::solve_spec<double>(spec, "fft");
    EXPECT_LT(fft.report.relative_residual, 1e-12);
    EXPECT_LT(relative_difference(fft.d.u, sor.d.u), 1e-10) << dims << "D";
  }
}

double observed_order(const std::string& solver, int dims, const std::string& sides, int coarse) {
  double errors[2];
  for (int level = 0; level < 2; ++level) {
    ModelProblem m;
    m.dims = dims;
    m.n = (coarse - 1) * (1 << level) + 1;
    m.sides = sides;
    const ProblemSpec spec = make_model_problem(m);
    auto s = testing::solve_spec<double>(spec, solver);
    errors[level] = testing::max_error(spec, s.d);
  }
  return std::log2(errors[0] / errors[1]);
}

TEST(DirectPoisson, ObservedOrderIsTwo) {
  EXPECT_NEAR(observed_order("buneman", 2, "dirichlet", 65), 2.0, 0.1);
  EXPECT_NEAR(observed_order("fft", 2, "dirichlet", 65), 2.0, 0.1);
  EXPECT_NEAR(observed_order("fft", 2, "neumann", 65), 2.0, 0.1);
  EXPECT_NEAR(observed_order("fft", 3, "neumann", 17), 2.0, 0.1);
}

TEST(DirectPoisson, FloatIsCloseToDouble) {
  ModelProblem m;
  m.n = 129;
  m.rhs = "random";
  const ProblemSpec spec = make_model_problem(m);
  for (const char* solver : {"buneman", "fft"}) {
    auto d = testing::solve_spec<double>(spec, solver);
    auto f = testing::solve_spec<float>(spec, solver);
    const std::vector<float> uf = f.d.u.to_vector();
    const std::vector<double> ud = d.d.u.to_vector();
    double num = 0, den = 0;
    for (std::size_t i = 0; i < ud.size(); ++i) {
      num = std::max(num, std::abs(double(uf[i]) - ud[i]));
      den = std::max(den, std::abs(ud[i]));
    }
    EXPECT_LT(num / den, 1e-4) << solver;
  }
}

void expect_refusal(const ModelProblem& m, const std::string& solver, const std::string& words) {
  const ProblemSpec spec = make_model_problem(m);
  try {
    testing::solve_spec<double>(spec, solver);
    ADD_FAILURE() << solver << " accepted a problem it should refuse";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::invalid_input);
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(DirectPoisson, RefusesProblemsThatDoNotQualify) {
  ModelProblem m;
  m.n = 33;
  m.coefficient = "variable";
  expect_refusal(
      m, "buneman",
      "buneman needs constant coefficients on a full rectangle with Dirichlet sides; this "
      "problem has a variable coefficient k");
  expect_refusal(m, "fft", "variable coefficient");
  m.coefficient = "constant";
  m.mask = "hole";
  expect_refusal(m, "fft", "cut-out");
  m.mask = "fixed";
  expect_refusal(m, "buneman", "fixed interior");
  m.mask = "none";
  m.sides = "neumann";
  expect_refusal(m, "buneman", "Neumann side");
  m.sides = "robin";
  expect_refusal(m, "fft", "Robin side");
  m.sides = "dirichlet";
  m.n = 40;
  expect_refusal(m, "buneman", "2^k - 1 interior nodes");
}

}  // namespace
}  // namespace gridsolve
