// Resources: memory estimates and limits, bounded input reading, lost standard output, scaled
// norms.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/sum_of_squares.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/problem/stencil_operator.hpp"
#include "output_test_support.hpp"

using namespace gridsolve;
using namespace gridsolve::output_testing;

namespace {

const char* small_systems = "3 1\n0 4 -1 1\n-1 4 -1 2\n-1 4 0 3\n";

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(ResourcesMemory, AvailableMemoryIsKnownAndPositive) {
  const std::size_t host = host_memory_available();
  EXPECT_GT(host, std::size_t(1) << 20);
  EXPECT_LT(host, std::size_t(1) << 50);  // a number, not "unlimited"
}

TEST(ResourcesMemory, OversizedGridsAreRefusedBeforeAllocating) {
  // The address-space limit makes "available" the same on every machine: about 3 GB.
  struct Case {
    std::string args;
  } cases[] = {
      {"poisson --n 46341 --device cpu"},
      {"poisson --dims 3 --n 1291 --device cpu"},
      {"poisson --n 20001 --device cpu --precision float"},
      {"heat --n 30001 --device cpu"},
  };
  for (const Case& c : cases) {
    const auto t0 = std::chrono::steady_clock::now();
    const Outcome o = shell("ulimit -v 3000000; $GS " + c.args);
    EXPECT_EQ(o.code, 2) << c.args << "\n" << o.output;
    EXPECT_TRUE(contains(o.output, "needs about")) << c.args << "\n" << o.output;
    EXPECT_TRUE(contains(o.output, "GiB of host memory")) << o.output;
    EXPECT_TRUE(contains(o.output, "available")) << o.output;
    EXPECT_LT(seconds_since(t0), 10.0) << c.args;
  }
  // Without a limit: far beyond any machine.
  const Outcome o = shell("$GS poisson --n 1000001 --device cpu");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "needs about")) << o.output;
}

TEST(ResourcesMemory, MagnetMeshTooFineIsRefused) {
  const auto t0 = std::chrono::steady_clock::now();
  Scratch dir;
  const Outcome o = shell(
      "ulimit -v 3000000; $GS magnet --h 0.0001 --device cpu --no-plots -q "
      "--out " +
      (dir / "m"));
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "needs about")) << o.output;
  EXPECT_LT(seconds_since(t0), 20.0);
}

TEST(ResourcesInput, WireCountHasAnUpperBound) {
  const Outcome o = shell("$GS magnet --wires 1000000 --device cpu --no-plots -q --out /tmp");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "must be at most r0/dr + z0/dz = 150, got 1000000")) << o.output;
}

TEST(ResourcesMemory, FailedAllocationsNameTheirSize) {
  try {
    Buffer<double> huge(Device::cpu, std::size_t(1) << 42);  // 32 TiB
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::invalid_input);
    EXPECT_TRUE(contains(e.what(), "32768.000 GiB")) << e.what();
    EXPECT_TRUE(contains(e.what(), "available")) << e.what();
  }
  try {
    allocate_host_checked(std::size_t(1) << 45);
    FAIL() << "expected HostOutOfMemory";
  } catch (const HostOutOfMemory& e) {
    EXPECT_EQ(e.bytes(), std::size_t(1) << 45);
    EXPECT_TRUE(contains(describe_allocation_failure(e), "32768.000 GiB")) << e.what();
  }
  EXPECT_THROW(require_memory(Device::cpu, std::size_t(1) << 55, "this test"), Error);
  EXPECT_NO_THROW(require_memory(Device::cpu, 1024, "this test"));
  const Grid g = Grid::unit(2, 1025);
  // Three padded double fields: at least 3 x 8 x 1025^2 bytes.
  EXPECT_GE(grid_fields_bytes(g, 8, 3), std::size_t(3) * 8 * 1025 * 1025);
  EXPECT_LT(grid_fields_bytes(g, 8, 3), std::size_t(3) * 8 * 1100 * 1100);
}

TEST(ResourcesInput, ShortTridiagonalFileDeclaringHugeSystemsIsRefused) {
  Scratch dir;
  std::ofstream(dir / "huge.txt") << "1000000000 1\n0 1 0 1\n";  // 21 bytes
  const auto t0 = std::chrono::steady_clock::now();
  const Outcome o = shell("$GS tridiag " + (dir / "huge.txt"));
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "declares 1000000000 rows")) << o.output;
  EXPECT_TRUE(contains(o.output, "only 21 bytes")) << o.output;
  EXPECT_LT(seconds_since(t0), 5.0);
}

TEST(ResourcesInput, TridiagonalLineWithoutEndIsBounded) {
  Scratch dir;
  {
    std::ofstream f(dir / "zeros.bin", std::ios::binary);
    const std::string block(1 << 16, '\0');
    for (int i = 0; i < 40; ++i) f << block;  // 2.5 MiB, no newline (like /dev/zero)
  }
  const Outcome o = shell("$GS tridiag " + (dir / "zeros.bin"));
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "longer than")) << o.output;
  std::ofstream(dir / "nan.txt") << "2 1\n0 4 -1 1\n-1 nan 0 2\n";
  const Outcome n = shell("$GS tridiag " + (dir / "nan.txt"));
  EXPECT_EQ(n.code, 2) << n.output;
  EXPECT_TRUE(contains(n.output, "'nan' is not a finite number")) << n.output;
}

TEST(ResourcesStandardOutput, ClosedStandardOutputFails) {
  Scratch dir;
  std::ofstream(dir / "sys.txt") << small_systems;
  const Outcome o = shell("$GS tridiag " + (dir / "sys.txt") + " -q >&-");
  EXPECT_EQ(o.code, 1) << o.output;
  EXPECT_TRUE(contains(o.output, "cannot write standard output")) << o.output;
  // Other commands: the shared check at exit.
  const Outcome i = shell("$GS info >&-");
  EXPECT_EQ(i.code, 1) << i.output;
  EXPECT_TRUE(contains(i.output, "cannot write standard output")) << i.output;
}

TEST(ResourcesStandardOutput, FullStandardOutputFails) {
  Scratch dir;
  std::ofstream(dir / "sys.txt") << small_systems;
  const std::string full = dir / "full_device";
  if (::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0)
    GTEST_SKIP() << "cannot create a device node here (needs root)";
  const int fd = ::open(full.c_str(), O_WRONLY);
  if (fd < 0) GTEST_SKIP() << "device nodes cannot be opened here";
  ::close(fd);
  const Outcome o = shell("$GS tridiag " + (dir / "sys.txt") + " -q > " + full);
  EXPECT_EQ(o.code, 1) << o.output;
  EXPECT_TRUE(contains(o.output, "No space left on device")) << o.output;
  const Outcome f = shell("$GS tridiag " + (dir / "sys.txt") + " -q -o " + full);
  EXPECT_EQ(f.code, 1) << f.output;
  EXPECT_TRUE(contains(f.output, "No space left on device")) << f.output;
}

TEST(ResourcesOutputChecks, UnusableOutputFailsBeforeTheWork) {
  Scratch dir;
  std::ofstream(dir / "plain") << "x";
  const std::string bad = dir / "plain/sub";  // a folder inside a file
  std::ofstream(dir / "sys.txt") << small_systems;
  struct Case {
    std::string args;
    std::string not_printed;  // what the work would have printed
  } cases[] = {
      {"bench stencil --device cpu --n 64 --repeats 1 --out " + bad, "kernel"},
      {"bench tridiag --device cpu --n 64 --repeats 1 --out " + bad, "kernel"},
      {"bench mg --device cpu --unknowns 31 --repeats 1 --out " + bad, "solver"},
      {"tridiag " + (dir / "sys.txt") + " -o " + bad + "/x.txt", "relative residual"},
  };
  for (const Case& c : cases) {
    const Outcome o = shell("$GS " + c.args);
    EXPECT_EQ(o.code, 2) << c.args << "\n" << o.output;
    EXPECT_TRUE(contains(o.output, bad)) << c.args << "\n" << o.output;
    EXPECT_FALSE(contains(o.output, c.not_printed)) << c.args << "\n" << o.output;
  }
  // An overflowing benchmark size is refused, not printed negative.
  const Outcome big = shell("$GS bench tridiag --device cpu --n 600000");
  EXPECT_EQ(big.code, 2) << big.output;
  EXPECT_TRUE(contains(big.output, "at most")) << big.output;
}

TEST(ResourcesNorms, SumOfSquaresNeitherOverflowsNorUnderflows) {
  for (double scale : {1.0, 1e200, 1e300, 1e-200, 1e-300, 1e-310}) {
    SumOfSquares s;
    double plain = 0;  // the same sum on values of order one
    for (int i = 1; i <= 1000; ++i) {
      const double v = std::sin(0.37 * i) + 1.5;
      s = s + SumOfSquares::of(v * scale);
      plain += v * v;
    }
    EXPECT_NEAR(s.norm() / scale, std::sqrt(plain), 1e-12 * std::sqrt(plain)) << scale;
  }
  // Mixed magnitudes: the big values dominate, the small ones still count where they can.
  SumOfSquares m = SumOfSquares::of(3e300) + SumOfSquares::of(4e300) + SumOfSquares::of(1e-300);
  EXPECT_NEAR(m.norm(), 5e300, 1e286);
  SumOfSquares t = SumOfSquares::of(3e-300) + SumOfSquares::of(4e-300) + SumOfSquares::of(1.0);
  EXPECT_DOUBLE_EQ(t.norm(), 1.0);
  EXPECT_TRUE(std::isnan((SumOfSquares::of(1.0) + SumOfSquares::of(NAN)).norm()));
  EXPECT_TRUE(std::isinf((SumOfSquares::of(1.0) + SumOfSquares::of(INFINITY)).norm()));
}

TEST(ResourcesNorms, ResidualNormsScaleWithTheData) {
  ModelProblem m;
  m.n = 33;
  m.rhs = "random";
  const ProblemSpec spec = make_model_problem(m);
  Discretization<double> d = assemble<double>(spec, Device::cpu);
  // Some u that is not the solution.
  const FieldView<double> u = d.u.view();
  for (int j = 1; j < 32; ++j)
    for (int i = 1; i < 32; ++i) u(i, j, 0) = std::cos(0.3 * i + 0.7 * j);
  const double r1 = d.op.residual_norm(nullptr, d.u), b1 = d.op.rhs_norm(nullptr, d.u);
  ASSERT_GT(r1, 0);
  ASSERT_GT(b1, 0);
  for (double scale : {1e200, 1e300, 1e-300}) {
    StencilOperator<double> op = d.op.copy_to(Device::cpu);
    Field<double> us = d.u.copy_to(Device::cpu);
    const FieldView<double> v = us.view();
    for (int j = 0; j < 33; ++j)
      for (int i = 0; i < 33; ++i) v(i, j, 0) *= scale;
    const FieldView<double> b = op.rhs.view();
    for (int j = 0; j < 33; ++j)
      for (int i = 0; i < 33; ++i) b(i, j, 0) *= scale;
    EXPECT_NEAR(op.residual_norm(nullptr, us) / scale / r1, 1.0, 1e-12) << scale;
    EXPECT_NEAR(op.rhs_norm(nullptr, us) / scale / b1, 1.0, 1e-12) << scale;
  }
}

TEST(ResourcesNorms, HotPlateOfHugeTemperatureReportsItsResidual) {
  std::vector<double> residuals;
  for (const char* hot : {"1", "1e200", "1e300"}) {
    Scratch dir(hot);
    const Outcome o = shell(std::string("$GS heat --n 33 --device cpu --max-iter 200 -q --hot ") +
                            hot + " --out " + dir.path().string());
    EXPECT_EQ(o.code, 3) << o.output;  // 200 Jacobi sweeps do not reach 1e-4
    const nlohmann::json j = nlohmann::json::parse(read_text(dir / "summary.json"));
    ASSERT_TRUE(j["relative_residual"].is_number()) << hot << ": " << j.dump();
    residuals.push_back(j["relative_residual"].get<double>());
  }
  // The relative residual does not depend on the scale of the data.
  EXPECT_GT(residuals[0], 0);
  EXPECT_NEAR(residuals[1] / residuals[0], 1.0, 1e-9);
  EXPECT_NEAR(residuals[2] / residuals[0], 1.0, 1e-9);
}

TEST(ResourcesNorms, KrylovSolversWithHugeDataConvergeAsWithUnitData) {
  for (const char* solver : {"cg", "pcg", "mgcg"}) {
    std::vector<nlohmann::json> runs;
    for (const char* hot : {"1", "1e300"}) {
      Scratch dir(std::string(solver) + hot);
      const Outcome o =
          shell(std::string("$GS heat --n 33 --device cpu --rule residual --tol 1e-9 -q ") +
                "--solver " + solver + " --hot " + hot + " --out " + dir.path().string());
      EXPECT_EQ(o.code, 0) << solver << " " << hot << "\n" << o.output;
      runs.push_back(nlohmann::json::parse(read_text(dir / "summary.json")));
    }
    ASSERT_TRUE(runs[1]["relative_residual"].is_number()) << solver << runs[1].dump();
    EXPECT_LT(runs[1]["relative_residual"].get<double>(), 1e-9) << solver;
    // The same iteration up to rounding: the count may differ by one at the tolerance.
    EXPECT_NEAR(runs[0]["iterations"].get<double>(), runs[1]["iterations"].get<double>(), 1.0)
        << solver;
  }
}
