// Observed order of accuracy on manufactured solutions: 2 for every side type and mask.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "gridsolve/problem/model_problems.hpp"
#include "test_helpers.hpp"

namespace gridsolve {
namespace {

struct Case {
  int dims;
  std::string sides, mask, k;
  int n_coarse;
};

std::string name_of(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return std::to_string(c.dims) + "D_" + c.sides + "_" + c.mask + "_" + c.k;
}

class OrderOfAccuracy : public ::testing::TestWithParam<Case> {};

TEST_P(OrderOfAccuracy, IsTwo) {
  const Case& c = GetParam();
  double errors[2];
  for (int level = 0; level < 2; ++level) {
    ModelProblem m;
    m.dims = c.dims;
    m.n = (c.n_coarse - 1) * (1 << level) + 1;  // h halves
    m.sides = c.sides;
    m.mask = c.mask;
    m.coefficient = c.k;
    const ProblemSpec spec = make_model_problem(m);
    auto s = testing::solve_spec<double>(spec, "sor", 1e-12);
    ASSERT_TRUE(s.report.converged) << s.report.reason;
    errors[level] = testing::max_error(spec, s.d);
    ASSERT_GT(errors[level], 0.0);
  }
  const double order = std::log2(errors[0] / errors[1]);
  EXPECT_NEAR(order, 2.0, 0.1) << "errors " << errors[0] << " -> " << errors[1];
}

INSTANTIATE_TEST_SUITE_P(
    Manufactured, OrderOfAccuracy,
    ::testing::Values(
        Case{2, "dirichlet", "none", "constant", 65}, Case{2, "neumann", "none", "constant", 65},
        Case{2, "robin", "none", "constant", 65}, Case{2, "dirichlet", "none", "variable", 65},
        Case{2, "neumann", "none", "variable", 65}, Case{2, "dirichlet", "fixed", "constant", 65},
        Case{2, "dirichlet", "hole", "constant", 65}, Case{2, "robin", "hole", "variable", 65},
        Case{3, "dirichlet", "none", "constant", 17}, Case{3, "neumann", "none", "variable", 17},
        Case{3, "robin", "none", "constant", 17}, Case{3, "dirichlet", "fixed", "constant", 17},
        Case{3, "neumann", "hole", "constant", 17}),
    name_of);

}  // namespace
}  // namespace gridsolve
