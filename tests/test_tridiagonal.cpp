// Tridiagonal solvers on the CPU against LAPACK gtsv: every method, layout and size class.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <tuple>

#include "cli_runner.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/solve/tridiag/solution_check.hpp"
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

// The accuracy check of `gridsolve tridiag`: what stable solves measure against the limit.
// Coefficients are made in double and solved in T from their rounded copies, as the
// command does; the residual is taken against the double values.
template <class T>
double residual_of(const std::vector<double>& a, const std::vector<double>& b,
                   const std::vector<double>& c, const std::vector<double>& d, int n, int count,
                   Method method) {
  std::vector<T> ta(a.begin(), a.end()), tb(b.begin(), b.end()), tc(c.begin(), c.end()),
      x(d.begin(), d.end());
  tridiag::solve(
      Device::cpu,
      tridiag::Batch<T>{ta.data(), tb.data(), tc.data(), x.data(), n, count, Layout::strided},
      {method});
  const std::vector<double> xd(x.begin(), x.end());
  const tridiag::SolutionCheck check =
      tridiag::check_solution(a.data(), b.data(), c.data(), d.data(), xd.data(), n, count);
  EXPECT_TRUE(check.finite);
  return check.residual;
}

template <class T>
void check_stable_solves_pass() {
  const double limit = tridiag::residual_limit<T>();
  double worst = 0;
  for (Method m : {Method::thomas, Method::cyclic_reduction, Method::parallel_cyclic_reduction,
                   Method::partitioned})
    for (int n : {1, 2, 3, 101, 1024, 4097, 100003}) {
      if (n > 4097 && m == Method::parallel_cyclic_reduction) continue;
      const int count = n > 4097 ? 1 : 3;
      const std::size_t size = std::size_t(n) * count;
      // Random diagonally dominant rows (margin >= 0.1), and the 1D Laplacian (-1 2 -1,
      // condition number about n^2) with a smooth right-hand side, at three scales.
      testing::RandomBatch<double> rb(n, count, Layout::strided, 5 + n);
      const double r = residual_of<T>(rb.a, rb.b, rb.c, rb.d, n, count, m);
      EXPECT_LE(r, limit / 8) << tridiag::to_string(m) << " random n=" << n;
      worst = std::max(worst, r);
      for (double scale : {1.0, 1e-30, 1e30}) {
        std::vector<double> a(size, -scale), b(size, 2 * scale), c(size, -scale), d(size);
        for (std::size_t k = 0; k < size; ++k) d[k] = scale * std::sin(0.001 * double(k % n));
        const double l = residual_of<T>(a, b, c, d, n, count, m);
        EXPECT_LE(l, limit / 8) << tridiag::to_string(m) << " Laplacian n=" << n
                                << " scale=" << scale;
        worst = std::max(worst, l);
      }
    }
  std::printf("  worst relative residual of the stable solves: %.3e (limit %.3e)\n", worst, limit);
}

TEST(TridiagonalAccuracy, StableSolvesStayFarWithinTheLimitDouble) {
  check_stable_solves_pass<double>();
}

TEST(TridiagonalAccuracy, StableSolvesStayFarWithinTheLimitFloat) {
  check_stable_solves_pass<float>();
}

TEST(TridiagonalAccuracy, CheckFindsNonFiniteValuesAndTheWorstSystem) {
  // Two systems of 3 rows: 2 x = 2 row by row; system 1's row 2 is off by 1.
  const std::vector<double> a = {0, 0, 0, 0, 0, 0}, b = {2, 2, 2, 2, 2, 2}, c = {0, 0, 0, 0, 0, 0},
                            d = {2, 2, 2, 2, 2, 2};
  std::vector<double> x = {1, 1, 1, 1, 1, 1.5};
  tridiag::SolutionCheck check =
      tridiag::check_solution(a.data(), b.data(), c.data(), d.data(), x.data(), 3, 2);
  EXPECT_TRUE(check.finite);
  EXPECT_EQ(check.system, 1);
  EXPECT_EQ(check.row, 2);
  EXPECT_DOUBLE_EQ(check.residual, 0.2);  // |2 - 3| / (|3| + |2|)
  x[4] = std::numeric_limits<double>::infinity();
  x[5] = std::nan("");
  check = tridiag::check_solution(a.data(), b.data(), c.data(), d.data(), x.data(), 3, 2);
  EXPECT_FALSE(check.finite);
  EXPECT_EQ(check.bad_system, 1);
  EXPECT_EQ(check.bad_row, 1);
  EXPECT_FALSE(check.residual <= 1);  // inf: never within a limit
  // A zero right-hand side and a zero solution: residual 0, not 0 / 0.
  const std::vector<double> zero(6, 0);
  check = tridiag::check_solution(a.data(), b.data(), c.data(), zero.data(), zero.data(), 3, 2);
  EXPECT_EQ(check.residual, 0);
}

// The command: values the precision cannot hold, and solutions that are not finite or not
// accurate, are never handed out with exit 0.
using Outcome = cli_testing::CliOutcome;

std::filesystem::path scratch_dir() {
  auto d = std::filesystem::temp_directory_path() / "gridsolve_tridiag_test";
  std::filesystem::create_directories(d);
  return d;
}

Outcome tridiag_cli(const std::string& name, const std::string& systems,
                    const std::string& options) {
  const auto file = scratch_dir() / name;
  std::ofstream(file) << systems;
  return cli_testing::run_cli("tridiag " + file.string() + " " + options);
}

bool has(const Outcome& o, const std::string& text) {
  return o.output.find(text) != std::string::npos;
}

TEST(TridiagonalCli, ValuesThePrecisionCannotHoldAreRefusedWithTheirLine) {
  // Float made these inf and -inf (printed with relative residual 0 and exit 0)...
  const std::string big = "2 1\n0 1 0 1e300\n0 1 0 -1e300\n";
  Outcome o = tridiag_cli("big.txt", big, "--precision float");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(has(o, "line 2: d = 1e300 (row 0 of system 0) is larger than float holds"))
      << o.output;
  EXPECT_TRUE(has(o, "--precision double")) << o.output;
  // ... and these zeros (relative residual 1, exit 0).
  o = tridiag_cli("tiny.txt", "2 1\n0 1 0 1e-300\n# row 1\n0 1 0 1e-300\n", "--precision float");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(has(o, "line 2: d = 1e-300 (row 0 of system 0) is smaller than float holds"))
      << o.output;
  o = tridiag_cli("denormal.txt", "1 1\n0 4e-39 0 1\n", "--precision float");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(has(o, "b = 4e-39")) << o.output;
  // Double holds them.
  o = tridiag_cli("big.txt", big, "-q");
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_EQ(o.output, "1.0000000000000001e+300\n-1.0000000000000001e+300\n");
  o = tridiag_cli("subnormal.txt", "1 1\n0 1 0 1e-310\n", "");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(has(o, "d = 1e-310 (row 0 of system 0) is smaller than double holds")) << o.output;
  o = tridiag_cli("range.txt", "1 1\n0 1 0 1e-400\n", "");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(has(o, "'1e-400' is out of the range of double")) << o.output;
  // a of a first row and c of a last row are not read: any finite value will do.
  o = tridiag_cli("unread.txt", "2 1\n1e300 2 0 2\n0 2 -1e-300 4\n", "--precision float -q");
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_EQ(o.output, "1\n2\n");
}

TEST(TridiagonalCli, SolutionsNotFiniteOrNotAccurateExitThreeAndAreNotWritten) {
  const auto out = scratch_dir() / "x.txt";
  std::filesystem::remove(out);
  // x = 1e600 is beyond double (it was printed as inf with exit 0).
  Outcome o = tridiag_cli("infinite.txt", "1 1\n0 1e-300 0 1e300\n", "-o " + out.string());
  EXPECT_EQ(o.code, 3) << o.output;
  EXPECT_TRUE(has(o, "x = inf at row 0 of system 0: the solution is not finite")) << o.output;
  EXPECT_TRUE(has(o, "nothing written")) << o.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  // In float x = 1e60 overflows even though every value fits.
  o = tridiag_cli("overflow.txt", "2 1\n0 1e-30 0 1e30\n0 1 0 1\n", "--precision float");
  EXPECT_EQ(o.code, 3) << o.output;
  EXPECT_TRUE(has(o, "not finite in float")) << o.output;
  // A system that needs pivoting: the pivot 1e-10 passes, the growth of 1e10 ruins x.
  for (const char* m : {"thomas", "cr", "partitioned"}) {
    o = tridiag_cli("growth.txt", "2 1\n0 1e-10 1 1\n1 1 0 2\n",
                    std::string("--method ") + m + " -o " + out.string());
    EXPECT_EQ(o.code, 3) << m << "\n" << o.output;
    EXPECT_TRUE(has(o, "in system 0 (largest at row 1) is above the limit 2.8e-14 for double"))
        << m << "\n"
        << o.output;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  o = tridiag_cli("growth_float.txt", "2 1\n0 1e-4 1 1\n1 1 0 2\n", "--precision float");
  EXPECT_EQ(o.code, 3) << o.output;
  EXPECT_TRUE(has(o, "above the limit 1.5e-05 for float")) << o.output;
  // A well-posed system passes and says where it stands against the limit.
  o = tridiag_cli("good.txt", "3 1\n0 4 -1 3\n-1 4 -1 2\n-1 4 0 3\n", "-o " + out.string());
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_TRUE(has(o, "(limit 2.8e-14)")) << o.output;
  EXPECT_TRUE(std::filesystem::exists(out));
}

// Data files are regular files of a size their header allows, checked before reading: a
// FIFO without a writer made the command wait forever, /dev/zero was read to the end of
// its first line, and a huge file would have been read to its end.
TEST(TridiagonalCli, OnlyRegularFilesOfAPlausibleSizeAreRead) {
  const auto d = scratch_dir();
  const auto fifo = d / "pipe";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  Outcome o = cli_testing::run_cli("tridiag " + fifo.string());
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(has(o, "cannot read system file '" + fifo.string() + "': it is a FIFO")) << o.output;
  std::filesystem::remove(fifo);
  o = cli_testing::run_cli("tridiag /dev/zero");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(has(o, "'/dev/zero': it is a character device; give a regular file")) << o.output;
  o = cli_testing::run_cli("tridiag " + d.string());
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(has(o, "it is a directory")) << o.output;
  // 8 GiB (sparse) after a header of one row: 1 MiB of comments and 1 KiB a row at most.
  const auto big = d / "big.txt";
  std::ofstream(big) << "1 1\n0 1 0 1\n";
  std::error_code ec;
  std::filesystem::resize_file(big, std::uintmax_t(8) << 30, ec);
  if (!ec) {
    o = cli_testing::run_cli("tridiag " + big.string());
    EXPECT_EQ(o.code, 2) << o.output;
    EXPECT_TRUE(has(o, "has 8589934592 bytes, more than 1 rows of 'a b c d' can take (1049600"))
        << o.output;
  }
  std::filesystem::remove(big);
  // The header within the first MiB; up to 1 MiB of comments in all is fine.
  const std::string comment = "# " + std::string(998, 'x') + "\n";
  std::string late;
  for (int i = 0; i < 1100; ++i) late += comment;
  o = tridiag_cli("late_header.txt", late + "1 1\n0 1 0 1\n", "");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(has(o, "has no header 'n count' in its first 1048576 bytes")) << o.output;
  std::string plenty;
  for (int i = 0; i < 1000; ++i) plenty += comment;
  o = tridiag_cli("comments.txt", plenty + "1 1\n0 1 0 1 # the row\n" + comment, "-q");
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_EQ(o.output, "1\n");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
}

}  // namespace
}  // namespace gridsolve
