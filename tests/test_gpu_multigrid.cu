// Multigrid and conjugate gradients on the GPU: the same answers as on the CPU, the same
// convergence factors at sizes the CPU tests cannot afford, masks and jumps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_support.hpp"
#include "test_helpers.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/expression.hpp"
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
// Zebra line relaxation on stretched cells (10:1, lines along y): on the GPU every line is
// one block's parallel cyclic reduction, on the CPU the Thomas algorithm, so the cycles
// agree to rounding: the same cycle count and the same solution. As a solver and as the
// preconditioner of conjugate gradients (the float cycle of mgcg-mixed too); constant rows
// and per-node rows with a cut-out; lines of 129 nodes and of 600.
TEST(GpuMultigrid, LineRelaxationAgreesWithTheCpu) {
  SKIP_WITHOUT_GPU();
  struct Case {
    const char *k, *mask, *rhs;
    int nx, ny;
  } cases[] = {{"constant", "none", "random", 129, 129},
               {"variable", "hole", "manufactured", 129, 129},
               {"constant", "none", "random", 61, 600}};
  for (const Case& c : cases) {
    ProblemSpec spec = model(2, c.nx, "dirichlet", c.mask, c.k, c.rhs);
    if (c.nx != c.ny) {  // a random right-hand side per node of the new grid
      spec.f_nodes.assign(std::size_t(c.nx) * c.ny, 0.0);
      std::mt19937_64 rng(3);
      std::uniform_real_distribution<double> u(-1, 1);
      for (double& f : spec.f_nodes) f = u(rng);
    }
    spec.grid = Grid::box(2, {c.nx, c.ny, 1}, {0, 0, 0}, {10.0 * (c.nx - 1) / (c.ny - 1), 1, 1});
    for (const char* solver : {"mg", "mgcg", "mgcg-mixed"}) {
      std::vector<double> on[2];
      SolveReport r[2];
      for (int g = 0; g < 2; ++g) {
        Discretization<double> disc = assemble<double>(spec, g ? Device::cuda : Device::cpu);
        SolveOptions o;
        o.tolerance = 1e-12;
        o.max_iterations = 100;
        // (lines on the same levels on both devices: those above the block's)
        MultigridOptions mg = MultigridOptions::parse("V", 2, 2, "line");
        mg.line_nodes = block_level_nodes(mg);
        r[g] = make_solver<double>(solver, mg)->solve(disc.op, disc.u, o);
        on[g] = disc.u.to_vector();
      }
      const std::string what = std::string(c.k) + " " + std::to_string(c.ny) + " " + solver;
      ASSERT_TRUE(r[0].converged && r[1].converged) << what << ": " << r[1].reason;
      EXPECT_NE(r[1].kernel.find("lines along y"), std::string::npos) << what << r[1].kernel;
      // (the float cycle's rounding may move the last check by one)
      EXPECT_LE(std::abs(r[0].iterations - r[1].iterations), std::string(solver) == "mgcg-mixed")
          << what;
      EXPECT_LE(r[1].iterations, 16) << what;
      EXPECT_LT(max_rel_diff(on[0], on[1]), 1e-8) << what;
    }
  }
}

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

// update(op) on the GPU, as a flow refreshes its pressure's hierarchy: the operator's
// coefficients rewritten in place, the hierarchy remade into its storage (the coarsest
// inverse made on the device) and the recorded cycle replayed as it was. The next solve
// equals a fresh setup's to the bit; so it does when the update also cuts a hole out (other
// unknowns: the cycle is recorded again), and after an update to another operator object.
// The device's coarsest inverse is the host's to round-off: the CPU's solution agrees.
TEST(GpuMultigrid, InPlaceUpdateEqualsAFreshSetup) {
  SKIP_WITHOUT_GPU();
  const Expression other_k = Expression::from(
      [](double x, double y, double) { return 2 + std::cos(6.283185307179586 * x) * y; },
      "2 + cos(2 pi x) y");
  struct Case {
    const char *sides, *first_mask, *second_mask;
  } cases[] = {{"dirichlet", "none", "none"},
               {"neumann", "hole", "hole"},
               {"dirichlet", "none", "hole"},
               {"periodic", "none", "none"}};
  for (const Case& c : cases)
    for (const char* solver : {"mg", "mgcg", "mgcg-mixed"}) {
      const std::string what =
          std::string(c.sides) + " " + c.first_mask + " -> " + c.second_mask + " " + solver;
      ProblemSpec first = model(2, 100, c.sides, c.first_mask, "variable", "manufactured");
      ProblemSpec second = model(2, 100, c.sides, c.second_mask, "variable", "manufactured");
      second.k = other_k;
      Discretization<double> a = assemble<double>(first, Device::cuda);
      const Discretization<double> b = assemble<double>(second, Device::cuda);
      Discretization<double> fresh_disc = assemble<double>(second, Device::cuda);
      SolveOptions o;
      o.tolerance = 1e-10;
      auto updated = make_solver<double>(solver);
      updated->setup(a.op);
      const std::vector<double> first_answer = [&] {
        const SolveReport r = updated->solve(a.u, o);
        EXPECT_TRUE(r.converged) << what << ": " << r.reason;
        return a.u.to_vector();
      }();
      // The operator rewritten in place, as an assembly into the same arrays does.
      for (auto [to, from] : {std::pair{&a.op.ap, &b.op.ap}, std::pair{&a.op.aw, &b.op.aw},
                              std::pair{&a.op.ae, &b.op.ae}, std::pair{&a.op.as, &b.op.as},
                              std::pair{&a.op.an, &b.op.an}, std::pair{&a.op.rhs, &b.op.rhs}})
        to->copy_from(*from);
      if (b.op.mask.empty())
        a.op.mask = Field<std::uint8_t>();
      else if (a.op.mask.empty())
        a.op.mask = b.op.mask.copy_to(Device::cuda);
      else
        a.op.mask.copy_from(b.op.mask);
      a.op.unknowns = b.op.unknowns;
      a.u.copy_from(b.u);
      updated->update(a.op);
      const SolveReport ru = updated->solve(a.u, o);
      auto fresh = make_solver<double>(solver);
      fresh->setup(fresh_disc.op);
      const SolveReport rf = fresh->solve(fresh_disc.u, o);
      ASSERT_TRUE(ru.converged && rf.converged) << what << ": " << ru.reason << " / " << rf.reason;
      EXPECT_EQ(ru.iterations, rf.iterations) << what;
      EXPECT_EQ(a.u.to_vector(), fresh_disc.u.to_vector()) << what;
      EXPECT_NE(first_answer, a.u.to_vector()) << what;  // the update changed the answer
      // Once more, to another operator object (its arrays elsewhere: recorded again).
      Discretization<double> again = assemble<double>(first, Device::cuda);
      Discretization<double> again_fresh = assemble<double>(first, Device::cuda);
      updated->update(again.op);
      const SolveReport ra = updated->solve(again.u, o);
      auto fresh_first = make_solver<double>(solver);
      fresh_first->setup(again_fresh.op);
      const SolveReport rff = fresh_first->solve(again_fresh.u, o);
      EXPECT_EQ(ra.iterations, rff.iterations) << what;
      EXPECT_EQ(again.u.to_vector(), again_fresh.u.to_vector()) << what;
      // The device's inverse against the host's: the CPU solves alike.
      std::vector<double> cpu;
      const SolveReport rc = solve_on<double>(second, solver, Device::cpu, cpu, 1e-10);
      EXPECT_TRUE(rc.converged) << what;
      EXPECT_LT(max_rel_diff(cpu, fresh_disc.u.to_vector()), 1e-8) << what;
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
