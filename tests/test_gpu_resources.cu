// GPU resources: device out-of-memory is a clean error with the size; scaled norms on the device.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpu_test_support.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/problem/stencil_operator.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {
namespace {

TEST(GpuResources, AllocationLargerThanTheCardIsACleanError) {
  SKIP_WITHOUT_GPU();
  const std::size_t free_bytes = device_memory_available();
  ASSERT_GT(free_bytes, std::size_t(1) << 28);
  const std::size_t asked = 2 * free_bytes;
  try {
    Buffer<double> huge(Device::cuda, asked / sizeof(double));
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::invalid_input);  // exit code 2
    const std::string m = e.what();
    EXPECT_NE(m.find("out of GPU memory: asked for " + format_bytes(asked / 8 * 8)),
              std::string::npos)
        << m;
  }
  // The device still works afterwards.
  Buffer<double> small(Device::cuda, 1024);
  zero_bytes(Device::cuda, small.data(), 1024 * sizeof(double));
  synchronize(Device::cuda);
}

TEST(GpuResources, SolveLargerThanTheCardIsRefusedBeforeAllocating) {
  SKIP_WITHOUT_GPU();
  const Grid g = Grid::unit(2, 100001);  // 10^10 nodes: 240 GB in double
  try {
    require_solve_memory(g, sizeof(double), Device::cuda);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::invalid_input);
    EXPECT_NE(std::string(e.what()).find("of GPU memory"), std::string::npos) << e.what();
  }
}

// The residual norm that stops every solver, reduced on the device with huge data.
TEST(GpuNorms, ResidualNormsOfHugeDataMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  ModelProblem m;
  m.n = 65;
  m.rhs = "random";
  const ProblemSpec spec = make_model_problem(m);
  for (double scale : {1.0, 1e300}) {
    Discretization<double> d = assemble<double>(spec, Device::cpu);
    const FieldView<double> u = d.u.view(), b = d.op.rhs.view();
    for (int j = 0; j < 65; ++j)
      for (int i = 0; i < 65; ++i) {
        if (i > 0 && j > 0 && i < 64 && j < 64) u(i, j, 0) = scale * std::cos(0.3 * i + 0.7 * j);
        b(i, j, 0) *= scale;
      }
    const double r_cpu = d.op.residual_norm(nullptr, d.u), b_cpu = d.op.rhs_norm(nullptr, d.u);
    const StencilOperator<double> op = d.op.copy_to(Device::cuda);
    const Field<double> ud = d.u.copy_to(Device::cuda);
    const double r_gpu = op.residual_norm(nullptr, ud), b_gpu = op.rhs_norm(nullptr, ud);
    EXPECT_TRUE(std::isfinite(r_gpu) && r_gpu > 0) << scale;
    EXPECT_NEAR(r_gpu / r_cpu, 1.0, 1e-12) << scale;
    EXPECT_NEAR(b_gpu / b_cpu, 1.0, 1e-12) << scale;
  }
}

// The tuned SOR kernels report their own residual norm; with 1e300 data it must stay finite.
TEST(GpuNorms, TunedSorResidualOfHugeDataIsFinite) {
  SKIP_WITHOUT_GPU();
  ModelProblem m;
  m.n = 65;
  m.rhs = "random";
  const ProblemSpec spec = make_model_problem(m);
  double relative[2] = {0, 0};
  int k = 0;
  for (double scale : {1.0, 1e300}) {
    Discretization<double> d = assemble<double>(spec, Device::cpu);
    const FieldView<double> b = d.op.rhs.view();
    for (int j = 0; j < 65; ++j)
      for (int i = 0; i < 65; ++i) b(i, j, 0) *= scale;
    StencilOperator<double> op = d.op.copy_to(Device::cuda);
    Field<double> u = d.u.copy_to(Device::cuda);
    SolveOptions o;
    o.tolerance = 1e-30;
    o.max_iterations = 50;
    const SolveReport r = make_solver<double>("sor")->solve(op, u, o);
    EXPECT_TRUE(std::isfinite(r.relative_residual) && r.relative_residual > 0)
        << scale << " " << r.reason;
    relative[k++] = r.relative_residual;
  }
  EXPECT_NEAR(relative[1] / relative[0], 1.0, 1e-6);
}

}  // namespace
}  // namespace gridsolve
