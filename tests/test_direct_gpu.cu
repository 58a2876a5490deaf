// GPU tridiagonal and fast Poisson solvers: against LAPACK gtsv and against the CPU path.
#include <gtest/gtest.h>

#include <iostream>

#include <random>

#include "gpu_test_support.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/solve/fast_poisson/transform_poisson.hpp"
#include "test_helpers.hpp"
#include "tridiag_reference.hpp"

namespace gridsolve {
namespace {

using tridiag::Layout;
using tridiag::Method;

template <class T>
struct DeviceBatch {
  Buffer<T> a, b, c, d;
  explicit DeviceBatch(const testing::RandomBatch<T>& rb)
      : a(Device::cuda, rb.a.size()),
        b(Device::cuda, rb.a.size()),
        c(Device::cuda, rb.a.size()),
        d(Device::cuda, rb.a.size()) {
    const std::size_t bytes = rb.a.size() * sizeof(T);
    copy_bytes(a.data(), Device::cuda, rb.a.data(), Device::cpu, bytes);
    copy_bytes(b.data(), Device::cuda, rb.b.data(), Device::cpu, bytes);
    copy_bytes(c.data(), Device::cuda, rb.c.data(), Device::cpu, bytes);
    copy_bytes(d.data(), Device::cuda, rb.d.data(), Device::cpu, bytes);
  }
  std::vector<T> solve(const testing::RandomBatch<T>& rb, Method m) {
    tridiag::solve(
        Device::cuda,
        tridiag::Batch<T>{a.data(), b.data(), c.data(), d.data(), rb.n, rb.count, rb.layout}, {m});
    std::vector<T> x(rb.a.size());
    copy_bytes(x.data(), Device::cpu, d.data(), Device::cuda, x.size() * sizeof(T));
    return x;
  }
};

using Case = std::tuple<Method, Layout, int>;
class TridiagonalGpu : public ::testing::TestWithParam<Case> {};

TEST_P(TridiagonalGpu, MatchesLapack) {
  SKIP_WITHOUT_GPU();
  const auto [method, layout, n] = GetParam();
  if (method == Method::parallel_cyclic_reduction && n > 512) GTEST_SKIP();
  if ((method == Method::cr_pcr || method == Method::cyclic_reduction) && n > 7000) GTEST_SKIP();
  // One thread walking millions of rows is the wrong tool; automatic picks partitioned.
  if (method == Method::thomas && n >= 100000) GTEST_SKIP();
  const int count = n >= 100000 ? 1 : 37;
  testing::RandomBatch<double> rb(n, count, layout, 77 + n);
  DeviceBatch<double> db(rb);
  const double error = testing::relative_error(db.solve(rb, method), rb.reference());
  EXPECT_LT(error, 1e-12);
  testing::RandomBatch<float> rf(n, count, layout, 78 + n);
  DeviceBatch<float> df(rf);
  const double error_float = testing::relative_error(df.solve(rf, method), rf.reference());
  EXPECT_LT(error_float, 5e-5);
  // The measured errors, for the accuracy table of the documentation.
  std::cout << "accuracy " << tridiag::to_string(method) << " " << tridiag::to_string(layout) << " "
            << count << " x " << n << ": double " << error << ", float " << error_float << "\n";
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto [method, layout, n] = info.param;
  std::string m = tridiag::to_string(method);
  for (char& ch : m)
    if (ch == '-') ch = '_';
  return m + "_" + tridiag::to_string(layout) + "_" + std::to_string(n);
}

INSTANTIATE_TEST_SUITE_P(SizeClasses, TridiagonalGpu,
                         ::testing::Combine(::testing::Values(Method::automatic, Method::thomas,
                                                              Method::cyclic_reduction,
                                                              Method::parallel_cyclic_reduction,
                                                              Method::cr_pcr, Method::partitioned),
                                            ::testing::Values(Layout::strided, Layout::interleaved),
                                            ::testing::Values(1, 2, 3, 5, 101, 127, 128, 1023, 1024,
                                                              4096, 1000003, 16777216)),
                         case_name);

TEST(TridiagonalGpu, SingularRowIsReported) {
  SKIP_WITHOUT_GPU();
  for (Method m : {Method::thomas, Method::cyclic_reduction, Method::cr_pcr, Method::partitioned}) {
    testing::RandomBatch<double> rb(m == Method::partitioned ? 100000 : 300, 2, Layout::strided, 7);
    const std::size_t k = rb.index(1, 64);
    rb.a[k] = rb.b[k] = rb.c[k] = 0;
    DeviceBatch<double> db(rb);
    EXPECT_THROW(db.solve(rb, m), Error) << tridiag::to_string(m);
  }
}

TEST(TridiagonalGpu, InterleavedPartitionShapes) {
  SKIP_WITHOUT_GPU();
  // On chip in a block: systems per block 1 to 32, partial last blocks, partial last
  // partitions, every partition length. In a cluster of blocks: batches past 2^20
  // unknowns of systems of 65 to 4096 rows, clusters of 1, 2, 3, 4, 7 and 8 blocks of 128
  // rows and of 5, 8, 12, 14 and 16 blocks of 256 rows, partial last groups of systems,
  // blocks with rows past n, float. Two passes: longer systems, partial last partitions,
  // reduced systems on chip and (past 8192 reduced rows) by Thomas.
  for (const auto& [n, count] : std::vector<std::pair<int, int>>{
           {1, 5},       {4, 1000},    {16, 33},    {17, 65},     {255, 3},
           {257, 9},     {2047, 5},    {8192, 3},   {64, 20000},  {65, 16200},
           {100, 10500}, {200, 5300},  {300, 4001}, {512, 2100},  {800, 1400},
           {1000, 1100}, {1025, 1100}, {2047, 600}, {3000, 400},  {3500, 330},
           {4096, 257},  {8192, 130},  {5001, 300}, {10000, 120}, {140001, 8}}) {
    testing::RandomBatch<double> rb(n, count, Layout::interleaved, 1000 + n);
    DeviceBatch<double> db(rb);
    const double error = testing::relative_error(db.solve(rb, Method::partitioned), rb.reference());
    EXPECT_LT(error, 1e-12) << n << " x " << count;
    std::cout << "accuracy partitioned interleaved " << count << " x " << n << ": double " << error
              << "\n";
    if (n == 100 || n == 1000 || n == 3000 || n == 4096) {  // and in float
      testing::RandomBatch<float> rf(n, count, Layout::interleaved, 2000 + n);
      DeviceBatch<float> df(rf);
      EXPECT_LT(testing::relative_error(df.solve(rf, Method::partitioned), rf.reference()), 5e-5);
    }
  }
}

TEST(TridiagonalGpu, StridedBlockShapes) {
  SKIP_WITHOUT_GPU();
  // Whole systems per block: one to 256 systems per block, system boundaries inside
  // partitions (n not a multiple of 16), partial last blocks, the longest systems, float.
  for (const auto& [n, count] : std::vector<std::pair<int, int>>{{16, 70},
                                                                 {17, 1000},
                                                                 {33, 125},
                                                                 {100, 300},
                                                                 {1000, 9},
                                                                 {2049, 5},
                                                                 {4095, 7},
                                                                 {4096, 300}}) {
    testing::RandomBatch<double> rb(n, count, Layout::strided, 3000 + n);
    DeviceBatch<double> db(rb);
    const double error = testing::relative_error(db.solve(rb, Method::partitioned), rb.reference());
    EXPECT_LT(error, 1e-12) << n << " x " << count;
    testing::RandomBatch<float> rf(n, count, Layout::strided, 4000 + n);
    DeviceBatch<float> df(rf);
    const double error_float =
        testing::relative_error(df.solve(rf, Method::partitioned), rf.reference());
    EXPECT_LT(error_float, 5e-5) << n << " x " << count;
    std::cout << "accuracy partitioned strided " << count << " x " << n << ": double " << error
              << ", float " << error_float << "\n";
  }
}

TEST(TridiagonalGpu, StridedBlocksReportPivots) {
  SKIP_WITHOUT_GPU();
  // A zero row inside a partition, and at a partition's first and last row (the chain).
  for (const int row : {37, 48, 63})
    for (const auto& [n, count] : std::vector<std::pair<int, int>>{{100, 300}, {4096, 20}}) {
      testing::RandomBatch<double> rb(n, count, Layout::strided, 13);
      const std::size_t k = rb.index(5, row);
      rb.a[k] = rb.b[k] = rb.c[k] = 0;
      DeviceBatch<double> db(rb);
      try {
        db.solve(rb, Method::partitioned);
        ADD_FAILURE() << "a zero row must be reported, " << n << " x " << count << " row " << row;
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("system 5 "), std::string::npos) << e.what();
      }
    }
}

TEST(TridiagonalGpu, InterleavedPartitionsReportPivots) {
  SKIP_WITHOUT_GPU();
  for (const auto& [n, count] : std::vector<std::pair<int, int>>{
           {300, 40}, {100, 10500}, {1000, 1100}, {2000, 600}, {3000, 400}, {10000, 120}}) {
    testing::RandomBatch<double> rb(n, count, Layout::interleaved, 11);
    const std::size_t k = rb.index(5, 97);
    rb.a[k] = rb.b[k] = rb.c[k] = 0;
    DeviceBatch<double> db(rb);
    try {
      db.solve(rb, Method::partitioned);
      ADD_FAILURE() << "a zero row must be reported, " << n << " x " << count;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("system 5 "), std::string::npos) << e.what();
    }
  }
}

TEST(DirectPoissonGpu, MatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  for (const char* solver : {"buneman", "fft"}) {
    ModelProblem m;
    m.n = 257;
    m.rhs = "random";
    const ProblemSpec spec = make_model_problem(m);
    auto cpu = testing::solve_spec<double>(spec, solver);
    auto gpu = testing::solve_spec<double>(spec, solver, 1e-11, Device::cuda);
    EXPECT_LT(testing::max_difference(cpu.d.u, gpu.d.u) / testing::max_abs(cpu.d.u), 1e-12)
        << solver;
    EXPECT_LT(gpu.report.relative_residual, 1e-12) << solver;
  }
  for (int dims : {2, 3}) {
    ModelProblem m;
    m.dims = dims;
    m.n = dims == 2 ? 129 : 33;
    m.sides = "neumann";
    const ProblemSpec spec = make_model_problem(m);
    auto cpu = testing::solve_spec<double>(spec, "fft");
    auto gpu = testing::solve_spec<double>(spec, "fft", 1e-11, Device::cuda);
    EXPECT_LT(testing::max_difference(cpu.d.u, gpu.d.u) / testing::max_abs(cpu.d.u), 1e-12) << dims;
  }
}

TEST(TransformPoissonGpu, EverySidePairMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  using fast_poisson::Side;
  const Side D = Side::dirichlet, N = Side::neumann, P = Side::periodic;
  const std::array<Side, 2> pairs[] = {{D, D}, {N, D}, {D, N}, {N, N}, {P, P}};
  for (int dims : {2, 3})
    for (const auto& sx : pairs)
      for (const auto& sy : pairs)
        for (const auto& sz : pairs) {
          if (dims == 2 && sz != pairs[0]) continue;
          fast_poisson::TransformProblem p;
          p.dims = dims;
          p.m = dims == 2 ? std::array<int, 3>{37, 20, 1} : std::array<int, 3>{9, 8, 11};
          p.h = {0.1, 0.12, 0.09};
          p.sides = {sx, sy, sz};
          const std::size_t size = std::size_t(p.m[0]) * p.m[1] * p.m[2];
          std::vector<double> b(size);
          std::mt19937_64 rng(5);
          std::uniform_real_distribution<double> u(-1, 1);
          for (double& v : b) v = u(rng);
          std::vector<double> x = b;
          fast_poisson::TransformPoisson<double>(Device::cpu, p).solve(x.data());
          Buffer<double> dv(Device::cuda, size);
          copy_bytes(dv.data(), Device::cuda, b.data(), Device::cpu, size * 8);
          fast_poisson::TransformPoisson<double>(Device::cuda, p).solve(dv.data());
          std::vector<double> y(size);
          copy_bytes(y.data(), Device::cpu, dv.data(), Device::cuda, size * 8);
          double num = 0, den = 0;
          for (std::size_t i = 0; i < size; ++i) {
            num = std::max(num, std::abs(x[i] - y[i]));
            den = std::max(den, std::abs(x[i]));
          }
          EXPECT_LT(num / den, 1e-11) << dims << "D " << int(sx[0]) << int(sx[1]) << int(sy[0])
                                      << int(sy[1]) << int(sz[0]) << int(sz[1]);
        }
}

}  // namespace
}  // namespace gridsolve
