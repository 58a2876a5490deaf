// Multigrid and conjugate gradients on the GPU: the same answers as on the CPU, the same
// convergence factors at sizes the CPU tests cannot afford, masks and jumps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "test_helpers.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/solve/multigrid/multigrid.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {
namespace {

template <class T>
SolveReport solve_on(const ProblemSpec& spec, const std::string& solver, Device d,
                     std::vector<T>& out, double tol) {
  Discretization<T> disc = assemble<T>(spec, d);
  SolveOptions o;
  o.tolerance = tol;
  o.max_iterations = 20000;  // plain CG needs thousands at these sizes
  const SolveReport r = make_solver<T>(solver)->solve(disc.op, disc.u, o);
  out = disc.u.to_vector();
  return r;
}

double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0, s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    m = std::max(m, std::abs(a[i] - b[i]));
    s = std::max(s, std::abs(a[i]));
  }
  return s > 0 ? m / s : m;
}

using testing::model;

TEST(GpuMultigrid, SameSolutionAsCpu) {
  SKIP_WITHOUT_GPU();
  const ProblemSpec specs[] = {model(2, 129, "dirichlet", "none", "constant", "random"),
                               model(2, 100, "neumann", "hole", "variable", "manufactured"),
                               model(3, 33, "robin", "fixed", "variable", "manufactured"),
                               model(3, 30, "dirichlet", "none", "constant", "random")};
  for (const ProblemSpec& spec : specs)
    for (const char* solver : {"mg", "mgcg", "mgcg-mixed", "cg", "pcg"}) {
      std::vector<double> cpu, gpu;
      const SolveReport rc = solve_on<double>(spec, solver, Device::cpu, cpu, 1e-11);
      const SolveReport rg = solve_on<double>(spec, solver, Device::cuda, gpu, 1e-11);
      EXPECT_TRUE(rc.converged && rg.converged) << spec.name << " " << solver << ": " << rg.reason;
      EXPECT_LT(max_rel_diff(cpu, gpu), 1e-9) << spec.name << " " << solver;
      // Same arithmetic in a different order: the iteration counts may differ by one.
      EXPECT_LE(std::abs(rc.iterations - rg.iterations), 1) << spec.name << " " << solver;
    }
}

// Periodic sides on the device: every iterative solver and the transform solver reach
// the CPU's solution (the images are refreshed by exchange_ghosts between sweeps).
TEST(GpuMultigrid, PeriodicSidesSameSolutionAsCpu) {
  SKIP_WITHOUT_GPU();
  const ProblemSpec specs[] = {model(2, 129, "periodic", "none", "variable", "manufactured"),
                               model(2, 97, "periodic-all", "none", "constant", "manufactured"),
                               model(3, 33, "periodic", "none", "variable", "manufactured")};
  for (const ProblemSpec& spec : specs)
    for (const char* solver : {"mg", "mgcg", "mgcg-mixed", "cg", "pcg", "sor", "jacobi", "fft"}) {
      if (std::string(solver) == "fft" && !spec.k.is_constant()) continue;
      // Jacobi needs tens of thousands of sweeps at 1e-11 beyond the smallest case.
      if (std::string(solver) == "jacobi" && spec.name.find("periodic-all") == std::string::npos)
        continue;
      std::vector<double> cpu, gpu;
      const SolveReport rc = solve_on<double>(spec, solver, Device::cpu, cpu, 1e-11);
      const SolveReport rg = solve_on<double>(spec, solver, Device::cuda, gpu, 1e-11);
      EXPECT_TRUE(rc.converged && rg.converged) << spec.name << " " << solver << ": " << rg.reason;
      EXPECT_LT(max_rel_diff(cpu, gpu), 1e-8) << spec.name << " " << solver;
    }
}

TEST(GpuMultigrid, V22FactorIsGridIndependentUpToLargeSizes) {
  SKIP_WITHOUT_GPU();
  for (int dims : {2, 3}) {
    std::vector<double> f;
    const std::vector<int> sizes =
        dims == 2 ? std::vector<int>{129, 1025, 4097} : std::vector<int>{33, 129, 257};
    for (int n : sizes) {
      std::vector<double> u;
      const SolveReport r = solve_on<double>(
          model(dims, n, "dirichlet", "none", "constant", "random"), "mg", Device::cuda, u, 1e-8);
      EXPECT_TRUE(r.converged) << r.reason;
      EXPECT_LE(r.convergence_factor, 0.1) << dims << "D n = " << n;
      f.push_back(r.convergence_factor);
    }
    EXPECT_LE(*std::max_element(f.begin(), f.end()) - *std::min_element(f.begin(), f.end()), 0.02)
        << dims << "D";
  }
}

// The coarse levels cycled inside one block (block_cycle.hpp) give the launched cycle's
// values to the bit: per-node rows with a cut-out, constant rows, 3D Robin sides, float;
// as a solver's cycles, as the symmetric preconditioner, and from full multigrid.
// block_nodes: the default (-1), or more levels in the block.
template <class T>
void expect_block_cycles_equal_launched(const ProblemSpec& spec, std::int64_t block_nodes) {
  Discretization<T> disc = assemble<T>(spec, Device::cuda);
  MultigridOptions block_options, launched_options;
  block_options.block_nodes = block_nodes;
  launched_options.block_nodes = 0;
  MultigridHierarchy<T> block(disc.op, block_options), launched(disc.op, launched_options);
  ASSERT_GT(block.block_start(), 0) << spec.name << ": " << block.describe();
  EXPECT_NE(block.describe().find("in one block"), std::string::npos) << block.describe();
  EXPECT_EQ(launched.block_start(), 0);
  Field<T> ub = disc.u.copy_to(Device::cuda), ul = disc.u.copy_to(Device::cuda);
  for (int c = 0; c < 3; ++c) {
    block.cycle(ub);
    launched.cycle(ul);
    EXPECT_EQ(ub.to_vector(), ul.to_vector()) << spec.name << ", cycle " << c + 1;
  }
  // A first cycle that changed nothing would make the comparison empty.
  EXPECT_NE(ub.to_vector(), disc.u.to_vector()) << spec.name;
  Field<T> zb = disc.u.copy_to(Device::cuda), zl = disc.u.copy_to(Device::cuda);
  block.precondition(ub, zb);
  launched.precondition(ub, zl);
  EXPECT_EQ(zb.to_vector(), zl.to_vector()) << spec.name << ", preconditioner";
  Field<T> fb = disc.u.copy_to(Device::cuda), fl = disc.u.copy_to(Device::cuda);
  block.full_multigrid(fb);
  launched.full_multigrid(fl);
  EXPECT_EQ(fb.to_vector(), fl.to_vector()) << spec.name << ", full multigrid";
}

TEST(GpuMultigrid, CoarseLevelsInOneBlockEqualTheLaunchedOnes) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t block_nodes : {std::int64_t(-1), std::int64_t(8192)}) {
    for (const ProblemSpec& spec : {model(2, 100, "neumann", "hole", "variable", "manufactured"),
                                    model(2, 257, "dirichlet", "none", "constant", "random"),
                                    model(3, 33, "robin", "fixed", "variable", "manufactured")})
      expect_block_cycles_equal_launched<double>(spec, block_nodes);
    expect_block_cycles_equal_launched<float>(
        model(2, 129, "dirichlet", "none", "variable", "random"), block_nodes);
  }
}

TEST(GpuMultigrid, FloatAndDoubleAgreeToSinglePrecision) {
  SKIP_WITHOUT_GPU();
  const ProblemSpec spec = model(2, 513, "dirichlet", "none", "constant", "random");
  std::vector<double> d;
  std::vector<float> f;
  ASSERT_TRUE(solve_on<double>(spec, "mgcg", Device::cuda, d, 1e-10).converged);
  ASSERT_TRUE(solve_on<float>(spec, "mgcg", Device::cuda, f, 1e-5).converged);
  std::vector<double> fd(f.begin(), f.end());
  EXPECT_LT(max_rel_diff(d, fd), 1e-4);
}

}  // namespace
}  // namespace gridsolve
