// Tridiagonal solvers on the CPU against LAPACK gtsv: every method, layout and size class.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "gridsolve/core/error.hpp"
#include "tridiag_reference.hpp"

namespace gridsolve {
namespace {

using tridiag::Layout;
using tridiag::Method;

using Case = std::tuple<Method, Layout, int>;

class TridiagonalCpu : public ::testing::TestWithParam<Case> {};

TEST_P(TridiagonalCpu, MatchesLapackDouble) {
  const auto [method, layout, n] = GetParam();
  const int count = n >= 100000 ? 1 : 7;
  testing::RandomBatch<double> rb(n, count, layout, 1234 + n);
  const std::vector<double> ref = rb.reference();
  std::vector<double> x = rb.d;
  tridiag::solve(Device::cpu, rb.batch(x.data()), {method});
  EXPECT_LT(testing::relative_error(x, ref), 1e-12);
}

TEST_P(TridiagonalCpu, MatchesLapackFloat) {
  const auto [method, layout, n] = GetParam();
  if (n >= 100000 && method == Method::parallel_cyclic_reduction) GTEST_SKIP();
  const int count = n >= 100000 ? 1 : 5;
  testing::RandomBatch<float> rb(n, count, layout, 99 + n);
  const std::vector<double> ref = rb.reference();
  std::vector<float> x = rb.d;
  tridiag::solve(Device::cpu, rb.batch(x.data()), {method});
  EXPECT_LT(testing::relative_error(x, ref), 2e-5);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto [method, layout, n] = info.param;
  std::string m = tridiag::to_string(method);
  for (char& ch : m)
    if (ch == '-') ch = '_';
  return m + "_" + tridiag::to_string(layout) + "_" + std::to_string(n);
}

// Size classes: tiny, odd, 2^k - 1, 2^k, about a million.
INSTANTIATE_TEST_SUITE_P(
    SizeClasses, TridiagonalCpu,
    ::testing::Combine(::testing::Values(Method::thomas, Method::cyclic_reduction,
                                         Method::parallel_cyclic_reduction, Method::partitioned),
                       ::testing::Values(Layout::strided, Layout::interleaved),
                       ::testing::Values(1, 2, 3, 5, 101, 127, 128, 1023, 1024, 1000003)),
    case_name);

TEST(TridiagonalCpu, SingularRowIsReportedForEveryMethod) {
  for (Method m : {Method::thomas, Method::cyclic_reduction, Method::parallel_cyclic_reduction,
                   Method::partitioned}) {
    for (int row : {0, 3, 64, 299}) {
      testing::RandomBatch<double> rb(300, 2, Layout::strided, 7);
      const std::size_t k = rb.index(1, row);
      rb.a[k] = rb.b[k] = rb.c[k] = 0;
      std::vector<double> x = rb.d;
      try {
        tridiag::solve(Device::cpu, rb.batch(x.data()), {m});
        ADD_FAILURE() << "no error for a zero row " << row << " with " << tridiag::to_string(m);
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("pivot"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("system 1"), std::string::npos) << e.what();
      }
    }
  }
}

TEST(TridiagonalCpu, NanIsReported) {
  testing::RandomBatch<double> rb(50, 1, Layout::strided, 3);
  rb.b[10] = std::nan("");
  std::vector<double> x = rb.d;
  EXPECT_THROW(tridiag::solve(Device::cpu, rb.batch(x.data())), Error);
}

TEST(TridiagonalCpu, CrPcrIsRefusedOnTheCpu) {
  testing::RandomBatch<double> rb(10, 1, Layout::strided, 3);
  std::vector<double> x = rb.d;
  EXPECT_THROW(tridiag::solve(Device::cpu, rb.batch(x.data()), {Method::cr_pcr}), Error);
}

}  // namespace
}  // namespace gridsolve
