// Solvers on ranks: Jacobi, red-black SOR / Gauss-Seidel, CG and PCG on each rank's part
// of a Poisson problem, on the CPU and on each rank's GPU, give the one-process answer to
// the solver's tolerance (uneven boxes on 3 ranks, a periodic axis across ranks, a masked
// variable-coefficient domain, 3D); the others refuse clearly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/field_part.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/problem/stencil_operator_part.hpp"
#include "gridsolve/solve/multigrid/coarsening.hpp"
#include "gridsolve/solve/whole_on_every_rank.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {
namespace {

struct Parted {
  std::shared_ptr<const Decomposition> parts;
  StencilOperator<double> op;
  Field<double> u;
};

// Each rank's part; balanced: the cuts placed by unknowns (as the command does for a
// masked domain) instead of evenly.
Parted split(const Discretization<double>& whole, std::array<int, 3> grid = {0, 0, 0},
             bool balanced = false) {
  const Communicator& comm = Communicator::world();
  std::array<bool, 3> periodic{};
  for (int a = 0; a < 3; ++a) periodic[a] = (whole.op.periodic >> a) & 1;
  Parted p;
  const Decomposition even(whole.op.grid.box(Centring::node()), whole.op.grid.dims, comm.size(),
                           periodic, grid);
  p.parts = std::make_shared<const Decomposition>(
      balanced ? even.balanced(unknowns_per_plane(whole.op)) : even);
  p.op = operator_part(whole.op, p.parts, comm.rank());
  p.u = field_part(whole.u, p.parts, comm.rank());
  return p;
}

// The largest |value| of a whole solution and its largest difference from the ranks'
// parts, over every rank (every rank calls it).
struct Agreement {
  double largest = 0, worst = 0;
};
Agreement agreement(const Field<double>& whole, const Field<double>& part) {
  const Box b = part.interior();
  const FieldView<const double> a = whole.cview(), c = part.cview();
  Agreement r;
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
        r.largest = std::max(r.largest, std::fabs(a(i, j, k)));
        r.worst = std::max(r.worst, std::fabs(a(i, j, k) - c(i, j, k)));
      }
  r.largest = Communicator::world().max(r.largest);
  r.worst = Communicator::world().max(r.worst);
  return r;
}

SolveOptions update_rule(double tolerance, int check_every = 0) {
  SolveOptions o;
  o.rule = StopRule::update;
  o.tolerance = tolerance;
  o.check_every = check_every;
  return o;
}

// Solves the problem whole (every rank alike, on the CPU) and split (on `device`), and
// compares each rank's part.
SolveReport expect_same_answer(const ModelProblem& m, const std::string& solver, SolveOptions o,
                               double agree, std::array<int, 3> grid = {0, 0, 0},
                               Device device = Device::cpu, bool balanced = false,
                               const MultigridOptions& mg = {}) {
  const std::string what = solver + " on " + std::to_string(m.dims) + "D " + m.sides + ", mask " +
                           m.mask + ", k " + m.coefficient + ", " + to_string(device);
  const ProblemSpec spec = make_model_problem(m);
  Discretization<double> whole = assemble<double>(spec, Device::cpu);
  Parted part = split(whole, grid, balanced);
  const SolveReport one = make_solver<double>(solver, mg)->solve(whole.op, whole.u, o);
  SolveReport many;
  if (device == Device::cpu) {
    many = make_solver<double>(solver, mg)->solve(part.op, part.u, o);
  } else {
    const StencilOperator<double> op = part.op.copy_to(device);
    Field<double> u = part.u.copy_to(device);
    many = make_solver<double>(solver, mg)->solve(op, u, o);
    part.u = u.copy_to(Device::cpu);
  }
  EXPECT_TRUE(one.converged) << what << ": " << one.reason;  // every rank alike: no early return
  EXPECT_TRUE(many.converged) << what << ": " << many.reason;
  // Jacobi's and red-black sweeps are the same arithmetic on any split: the same count.
  // Krylov dot products sum in another order, which may move CG's stop by an iteration or
  // two; BiCGStab's irregular convergence amplifies that (105 against 109 on 3 ranks).
  // Multigrid's levels are the one-process levels, split: the same cycle count.
  const bool same_arithmetic = solver == "jacobi" || solver == "sor" || solver == "rb-gs" ||
                               solver == "mg" || solver == "mgcg" || solver == "mgcg-mixed";
  const double slack = same_arithmetic        ? 0
                       : solver == "bicgstab" ? std::max(2.0, 0.1 * one.iterations)
                                              : 2;
  EXPECT_NEAR(many.iterations, one.iterations, slack) << what;
  if (o.rule == StopRule::residual) {
    EXPECT_LT(many.relative_residual, o.tolerance) << what;
    EXPECT_NEAR(many.relative_residual, one.relative_residual, 0.5 * o.tolerance) << what;
  } else {  // the largest update: the same on every split
    EXPECT_EQ(many.last_update, one.last_update) << what;
    EXPECT_LT(many.last_update, o.tolerance) << what;
  }
  const auto [largest, worst] = agreement(whole.u, part.u);
  EXPECT_GT(largest, 1e-3) << what;  // a solution worth comparing
  EXPECT_LE(worst, agree * largest) << what << " on a " << part.parts->describe() << " grid";
  return many;
}

SolveOptions residual_rule(double tolerance) {
  SolveOptions o;
  o.tolerance = tolerance;
  o.max_iterations = 20000;
  return o;
}

TEST(MpiSolvers, JacobiMatchesOneProcess) {
  ModelProblem m;
  m.n = 17;
  expect_same_answer(m, "jacobi", residual_rule(1e-7), 1e-12);
  // Every split along x (uneven on 3 ranks), then along y.
  const int n = Communicator::world().size();
  expect_same_answer(m, "jacobi", residual_rule(1e-7), 1e-12, {n, 1, 1});
  expect_same_answer(m, "jacobi", residual_rule(1e-7), 1e-12, {1, n, 1});
}

TEST(MpiSolvers, JacobiMaxUpdateRule) {
  ModelProblem m;
  m.n = 17;
  m.rhs = "random";
  expect_same_answer(m, "jacobi", update_rule(1e-7, 5), 1e-12);
}

TEST(MpiSolvers, RedBlackSorMatchesOneProcess) {
  ModelProblem m;
  m.n = 33;
  // Each colour's updates are independent of one another: the same arithmetic on any split.
  expect_same_answer(m, "sor", residual_rule(1e-9), 1e-12);
  m.sides = "periodic";
  m.mask = "hole";
  expect_same_answer(m, "sor", residual_rule(1e-9), 1e-12, {Communicator::world().size(), 1, 1});
  ModelProblem noise;  // a random source on zero Dirichlet sides, the max-update rule
  noise.n = 33;
  noise.rhs = "random";
  expect_same_answer(noise, "rb-gs", update_rule(1e-8), 1e-12);
}

TEST(MpiSolvers, ConjugateGradientsMatchOneProcess) {
  ModelProblem m;
  m.n = 33;
  expect_same_answer(m, "cg", residual_rule(1e-10), 1e-8);
  m.sides = "periodic";  // x periodic across ranks, y Dirichlet
  expect_same_answer(m, "cg", residual_rule(1e-10), 1e-8);
  expect_same_answer(m, "pcg", residual_rule(1e-10), 1e-8, {Communicator::world().size(), 1, 1});
  m.sides = "neumann";
  m.mask = "fixed";
  m.coefficient = "variable";
  expect_same_answer(m, "pcg", residual_rule(1e-10), 1e-8);
  expect_same_answer(m, "bicgstab", residual_rule(1e-10), 1e-8);
}

TEST(MpiSolvers, ThreeDimensions) {
  ModelProblem m;
  m.dims = 3;
  m.n = 9;
  expect_same_answer(m, "cg", residual_rule(1e-10), 1e-8);
  m.sides = "periodic-all";  // singular: the zero-mean solution on every split
  expect_same_answer(m, "pcg", residual_rule(1e-10), 1e-8);
  m.sides = "dirichlet";
  expect_same_answer(m, "jacobi", residual_rule(1e-6), 1e-12);
}

// Multigrid: the hierarchy one process builds, its levels split over the ranks while they
// are large (each rank's coarse nodes lie on its fine ones) and whole on every rank below.
// The cycle is the same arithmetic, so the cycle count is the same on any number of ranks.
TEST(MpiSolvers, MultigridMatchesOneProcess) {
  const int n = Communicator::world().size();
  ModelProblem m;
  m.n = 513;  // levels of 513^2 and 257^2 nodes split, the coarser ones whole
  const SolveReport mg = expect_same_answer(m, "mg", residual_rule(1e-10), 1e-8);
  if (n > 1) {
    EXPECT_NE(mg.kernel.find("the finest 2 split over " + std::to_string(n) + " ranks"),
              std::string::npos)
        << mg.kernel;
  }
  expect_same_answer(m, "mgcg", residual_rule(1e-10), 1e-8, {n, 1, 1});
  m.n = 300;  // an even count: the last coarse interval short on every level
  m.sides = "periodic";
  m.mask = "hole";
  m.coefficient = "variable";
  expect_same_answer(m, "mg", residual_rule(1e-10), 1e-8, {1, n, 1});
  MultigridOptions deep;  // levels of 300^2, 151^2 and 76^2 nodes split
  deep.split_nodes = 4096;
  deep.cycle = Cycle::W;
  const SolveReport w =
      expect_same_answer(m, "mg", residual_rule(1e-10), 1e-8, {0, 0, 0}, Device::cpu, false, deep);
  if (n > 1) {
    EXPECT_NE(w.kernel.find("the finest 3 split"), std::string::npos) << w.kernel;
  }
  // The single-precision cycle, split the same way, preconditions the double iteration.
  expect_same_answer(m, "mgcg-mixed", residual_rule(1e-10), 1e-8, {n, 1, 1});
  m.sides = "neumann";  // singular: the zero-mean solution
  m.mask = "fixed";
  expect_same_answer(m, "mgcg", residual_rule(1e-10), 1e-8);
  expect_same_answer(m, "mgcg-mixed", residual_rule(1e-10), 1e-8);
  ModelProblem cube;
  cube.dims = 3;
  cube.n = 65;  // levels of 65^3 and 33^3 split
  cube.sides = "robin";
  expect_same_answer(cube, "mgcg", residual_rule(1e-10), 1e-8);
  cube.n = 40;
  cube.sides = "periodic-all";
  expect_same_answer(cube, "mg", residual_rule(1e-10), 1e-8);
}

// Multigrid's set-up on ranks coarsens each rank's part (its coefficients and mask two
// ghost layers deep): the weights and coarse operators must be the cut of the whole ones
// to the bit, two levels down, for masked, variable, periodic, Robin, singular and 3D
// problems (the cycle counts above follow from it; this names the level that differs).
TEST(MpiSolvers, CoarseningOnPartsIsTheCutOfTheWhole) {
  const Communicator& comm = Communicator::world();
  std::vector<ModelProblem> cases;
  ModelProblem m;
  m.n = 300;
  m.sides = "periodic", m.mask = "hole", m.coefficient = "variable";
  cases.push_back(m);
  m.n = 129, m.sides = "neumann", m.mask = "fixed", m.coefficient = "constant";
  cases.push_back(m);
  m.mask = "none", m.sides = "dirichlet";
  cases.push_back(m);  // uniform rows: the coarse levels held as uniform on every split
  ModelProblem cube;
  cube.dims = 3, cube.n = 33, cube.sides = "robin", cube.coefficient = "variable";
  cases.push_back(cube);
  cube.n = 40, cube.sides = "periodic-all", cube.coefficient = "constant";
  cases.push_back(cube);
  for (const ModelProblem& c : cases) {
    const std::string what =
        std::to_string(c.dims) + "D " + c.sides + ", mask " + c.mask + ", k " + c.coefficient;
    const Discretization<double> whole = assemble<double>(make_model_problem(c), Device::cpu);
    Parted part = split(whole);
    StencilOperator<double> fine_whole = whole.op.copy_to(Device::cpu);
    StencilOperator<double> fine_part = std::move(part.op);
    std::vector<double> x[3], w[3];
    for (int level = 0; level < 2; ++level) {
      const Grid g = fine_whole.grid;
      multigrid::Coarsening plan = multigrid::Coarsening::plan(g.n, g.dims, 5, fine_whole.periodic);
      ASSERT_TRUE(plan.any()) << what;
      for (int a = 0; a < 3; ++a) {  // uniform node positions on both levels
        x[a].assign(std::size_t(g.n[a]), 0.0);
        for (int i = 0; i < g.n[a]; ++i) x[a][std::size_t(i)] = i;
        w[a].assign(x[a].size(), 1.0);
        for (std::size_t q = 1; q + 1 < x[a].size(); ++q) w[a][q] = 0.5;
        plan.fine_x[a] = x[a].data();
        plan.fine_lower_weight[a] = w[a].data();
      }
      const std::optional<Decomposition> coarse_parts =
          fine_part.parts->coarsened(plan.coarse, plan.coarsened);
      ASSERT_TRUE(coarse_parts.has_value()) << what;
      const StencilOperator<double> wide = with_ghost_layers(fine_part, 2);
      const auto ww = multigrid::interpolation_weights(fine_whole.view(), plan, g, Device::cpu);
      const auto wp = multigrid::interpolation_weights(
          wide.view(), plan, g, Device::cpu, multigrid::LevelPlace{fine_part.parts, comm.rank()});
      StencilOperator<double> cw =
          multigrid::coarsen_operator(fine_whole.view(), plan, ww, g, Device::cpu);
      StencilOperator<double> cp = multigrid::coarsen_operator(
          wide.view(), plan, wp, g, Device::cpu,
          multigrid::LevelPlace{std::make_shared<const Decomposition>(*coarse_parts), comm.rank()});
      const std::string at = what + ", level " + std::to_string(level + 1);
      // Weights at the part's nodes (a whole level's are read folded: skip the images).
      std::int64_t differ = 0;
      for (int a = 0; a < g.dims; ++a) {
        if (ww.lower[a].empty() != wp.lower[a].empty()) ++differ;
        if (ww.lower[a].empty() || wp.lower[a].empty()) continue;
        const Box b = wp.lower[a].interior().intersect(fine_whole.active);
        const FieldView<const double> u = ww.lower[a].cview(), v = wp.lower[a].cview();
        for (int k = b.lo[2]; k <= b.hi[2]; ++k)
          for (int j = b.lo[1]; j <= b.hi[1]; ++j)
            for (int i = b.lo[0]; i <= b.hi[0]; ++i) differ += u(i, j, k) != v(i, j, k);
      }
      EXPECT_EQ(comm.sum(double(differ)), 0.0) << at << ": interpolation weights";
      EXPECT_EQ(cp.unknowns, cw.unknowns) << at;
      ASSERT_EQ(cp.uniform, cw.uniform) << at;
      ASSERT_EQ(cp.global_active.lo, cw.active.lo) << at;
      ASSERT_EQ(cp.global_active.hi, cw.active.hi) << at;
      if (cw.uniform) {
        EXPECT_EQ(std::vector<double>({cp.cp, cp.cw, cp.ce, cp.cs, cp.cn, cp.cb, cp.ct}),
                  std::vector<double>({cw.cp, cw.cw, cw.ce, cw.cs, cw.cn, cw.cb, cw.ct}))
            << at;
      } else {
        differ = 0;
        const Box b = cp.active;
        const FieldView<const double> fw[7] = {cw.ap.cview(), cw.aw.cview(), cw.ae.cview(),
                                               cw.as.cview(), cw.an.cview(), cw.ab.cview(),
                                               cw.at.cview()};
        const FieldView<const double> fp[7] = {cp.ap.cview(), cp.aw.cview(), cp.ae.cview(),
                                               cp.as.cview(), cp.an.cview(), cp.ab.cview(),
                                               cp.at.cview()};
        const FieldView<const std::uint8_t> mw = cw.mask.cview(), mp = cp.mask.cview();
        for (int k = b.lo[2]; k <= b.hi[2]; ++k)
          for (int j = b.lo[1]; j <= b.hi[1]; ++j)
            for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
              differ += mw(i, j, k) != mp(i, j, k);
              for (int q = 0; q < 1 + 2 * g.dims; ++q) differ += fw[q](i, j, k) != fp[q](i, j, k);
            }
        EXPECT_EQ(comm.sum(double(differ)), 0.0) << at << ": coarse rows";
      }
      fine_whole = std::move(cw);
      fine_part = std::move(cp);
    }
  }
}

// A small problem split over the ranks, solved whole on every rank: the one-process
// answer and iteration count on every split, set up once, new coefficients by update(),
// solves with the operator's own right-hand side and with one given per solve.
TEST(MpiSolvers, WholeOnEveryRankMatchesOneProcess) {
  const int n = Communicator::world().size();
  ModelProblem m;
  m.n = 65;
  for (const char* sides : {"dirichlet", "neumann", "periodic"}) {
    m.sides = sides;
    m.mask = std::string(sides) == "periodic" ? "hole" : "none";
    m.coefficient = "variable";
    const ProblemSpec spec = make_model_problem(m);
    Discretization<double> whole = assemble<double>(spec, Device::cpu);
    Parted part = split(whole, {0, 0, 0});
    for (const char* name : {"mg", "mgcg", "cg"}) {
      const std::string what = std::string(name) + " on " + sides;
      Field<double> u1 = whole.u.copy_to(Device::cpu), u2 = part.u.copy_to(Device::cpu);
      const SolveReport one = make_solver<double>(name)->solve(whole.op, u1, residual_rule(1e-10));
      WholeOnEveryRank<double> s(make_solver<double>(name), std::int64_t(1) << 20);
      s.setup(part.op);
      EXPECT_EQ(s.whole(), n > 1) << what;
      const SolveReport many = s.solve(u2, residual_rule(1e-10));
      EXPECT_EQ(many.iterations, one.iterations) << what;
      const auto [largest, worst] = agreement(u1, u2);
      EXPECT_GT(largest, 1e-3) << what;
      EXPECT_LE(worst, 1e-12 * largest) << what;
      // A right-hand side given per solve, after update().
      Field<double> b = whole.op.make_field(), u3 = whole.u.copy_to(Device::cpu);
      const FieldView<double> bv = b.view();
      const Box& act = whole.op.active;
      for (int j = act.lo[1]; j <= act.hi[1]; ++j)
        for (int i = act.lo[0]; i <= act.hi[0]; ++i) bv(i, j, 0) = 1e-3 * (i - 2 * j);
      s.update(part.op);
      const Field<double> b_part = field_part(b, part.parts, Communicator::world().rank());
      Field<double> u4 = part.u.copy_to(Device::cpu);
      const std::unique_ptr<Solver<double>> alone = make_solver<double>(name);
      alone->setup(whole.op);
      alone->solve(b, u3, residual_rule(1e-10));
      const SolveReport given = s.solve(b_part, u4, residual_rule(1e-10));
      EXPECT_TRUE(given.converged) << what;
      const auto [largest_b, worst_b] = agreement(u3, u4);
      EXPECT_LE(worst_b, 1e-12 * largest_b) << what << ", b given";
    }
  }
}

// The transform solver on slabs: each rank transforms its slab, one all-to-all gives each
// rank every t of its modes for the line solves, one more brings them back. Dirichlet,
// Neumann (singular: the zero-mean solution) and periodic sides, 2D and 3D, uneven slabs
// on 3 ranks; a grid split across the transformed axes is refused with the grid to use.
TEST(MpiSolvers, TransformSolverOnSlabs) {
  const int n = Communicator::world().size();
  ModelProblem m;
  m.n = 65;
  expect_same_answer(m, "fft", residual_rule(1e-10), 1e-10, {1, n, 1});
  m.sides = "neumann";
  expect_same_answer(m, "fft", residual_rule(1e-10), 1e-10, {1, n, 1});
  m.sides = "periodic";  // x periodic (transformed), y the line axis
  m.n = 50;
  expect_same_answer(m, "fft", residual_rule(1e-10), 1e-10, {1, n, 1});
  m.sides = "periodic-all";  // y periodic too: its whole lines transformed after the transpose
  m.n = 37;
  expect_same_answer(m, "fft", residual_rule(1e-10), 1e-10, {1, n, 1});
  ModelProblem cube;
  cube.dims = 3;
  cube.n = 17;
  expect_same_answer(cube, "fft", residual_rule(1e-10), 1e-10, {1, 1, n});
  cube.sides = "neumann";
  cube.n = 12;
  expect_same_answer(cube, "fft", residual_rule(1e-10), 1e-10, {1, 1, n});
  cube.sides = "periodic-all";
  cube.n = 14;
  expect_same_answer(cube, "fft", residual_rule(1e-10), 1e-10, {1, 1, n});
  if (n > 1) {
    Discretization<double> whole =
        assemble<double>(make_model_problem(ModelProblem{}), Device::cpu);
    Parted across = split(whole, {n, 1, 1});
    try {
      make_solver<double>("fft")->solve(across.op, across.u, residual_rule(1e-8));
      ADD_FAILURE() << "fft solved on a grid split across x";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--ranks-grid 1x" + std::to_string(n)),
                std::string::npos)
          << e.what();
    }
  }
}

// The same problems on each rank's GPU: ghosts by the device link, sums by its
// all-reduce (or staged through the host where ranks share a GPU).
TEST(MpiSolvers, OnTheGpu) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU: " << cuda_unavailable_reason();
  const int n = Communicator::world().size();
  ModelProblem m;
  m.n = 33;
  expect_same_answer(m, "jacobi", residual_rule(1e-7), 1e-12, {n, 1, 1}, Device::cuda);
  // Split across y only, every part's rows start at x = 0: the tuned sweep runs on them.
  const SolveReport rows =
      expect_same_answer(m, "jacobi", residual_rule(1e-7), 1e-12, {1, n, 1}, Device::cuda);
  EXPECT_EQ(rows.kernel, "tuned");
  expect_same_answer(m, "sor", residual_rule(1e-9), 1e-12, {1, n, 1}, Device::cuda);
  expect_same_answer(m, "cg", residual_rule(1e-10), 1e-8, {0, 0, 0}, Device::cuda);
  m.sides = "periodic";
  m.mask = "hole";
  expect_same_answer(m, "pcg", residual_rule(1e-10), 1e-8, {n, 1, 1}, Device::cuda);
  ModelProblem cube;
  cube.dims = 3;
  cube.n = 17;
  cube.sides = "periodic-all";
  expect_same_answer(cube, "pcg", residual_rule(1e-10), 1e-8, {0, 0, 0}, Device::cuda);
  cube.sides = "robin";
  expect_same_answer(cube, "bicgstab", residual_rule(1e-10), 1e-8, {0, 0, 0}, Device::cuda);
  ModelProblem noise;  // the max-update rule, on every rank alike
  noise.n = 33;
  noise.rhs = "random";
  expect_same_answer(noise, "jacobi", update_rule(1e-7, 5), 1e-12, {0, 0, 0}, Device::cuda);
  // Multigrid with coarse levels split down to 4096 nodes (a GPU keeps them whole below a
  // million by default), gathered onto every GPU below.
  MultigridOptions deep;
  deep.split_nodes = 4096;
  ModelProblem fine;
  fine.n = 300;
  fine.sides = "periodic";
  fine.mask = "hole";
  fine.coefficient = "variable";
  const SolveReport mg = expect_same_answer(fine, "mg", residual_rule(1e-10), 1e-8, {0, 0, 0},
                                            Device::cuda, false, deep);
  if (n > 1) {
    EXPECT_NE(mg.kernel.find("the finest 3 split"), std::string::npos) << mg.kernel;
  }
  cube.n = 65;
  expect_same_answer(cube, "mgcg", residual_rule(1e-10), 1e-8, {0, 0, 0}, Device::cuda, false,
                     deep);
  expect_same_answer(fine, "mgcg-mixed", residual_rule(1e-10), 1e-8, {0, 0, 0}, Device::cuda, false,
                     deep);
  // The transform solver on slabs, its transposes by the device link.
  ModelProblem slab;
  slab.n = 129;
  slab.sides = "neumann";
  expect_same_answer(slab, "fft", residual_rule(1e-10), 1e-10, {1, n, 1}, Device::cuda);
  cube.sides = "dirichlet";
  cube.n = 33;
  expect_same_answer(cube, "fft", residual_rule(1e-10), 1e-10, {1, 1, n}, Device::cuda);
  cube.sides = "periodic-all";
  cube.n = 20;
  expect_same_answer(cube, "fft", residual_rule(1e-10), 1e-10, {1, 1, n}, Device::cuda);
  slab.sides = "periodic-all";
  slab.n = 101;
  expect_same_answer(slab, "fft", residual_rule(1e-10), 1e-10, {1, n, 1}, Device::cuda);
}

// An L-shaped domain (the upper right quarter fixed) cut by unknowns: the ranks hold
// about equal numbers of them (the even cuts give the lower ranks up to twice as many),
// and the solve on those boxes is the one-process solve.
TEST(MpiSolvers, MaskedDomainCutByUnknowns) {
  const int n = Communicator::world().size();
  ModelProblem m;
  m.n = 65;
  m.mask = "fixed";
  const Discretization<double> whole = assemble<double>(make_model_problem(m), Device::cpu);
  for (const std::array<int, 3> grid : {std::array<int, 3>{n, 1, 1}, std::array<int, 3>{1, n, 1}}) {
    const Parted even = split(whole, grid), balanced = split(whole, grid, true);
    std::int64_t even_most = 0, most = 0, fewest = whole.op.unknowns;
    for (int r = 0; r < n; ++r) {
      even_most = std::max(even_most, unknowns_in(whole.op, even.parts->box(r)));
      const std::int64_t here = unknowns_in(whole.op, balanced.parts->box(r));
      most = std::max(most, here), fewest = std::min(fewest, here);
    }
    const double share = double(whole.op.unknowns) / n;
    EXPECT_LE(double(most), share + 65) << balanced.parts->describe();  // within a plane
    EXPECT_GE(double(fewest), share - 65) << balanced.parts->describe();
    if (n > 1) {
      EXPECT_LT(most, even_most) << balanced.parts->describe();
    }
  }
  expect_same_answer(m, "pcg", residual_rule(1e-10), 1e-8, {n, 1, 1}, Device::cpu, true);
  expect_same_answer(m, "sor", residual_rule(1e-9), 1e-12, {1, n, 1}, Device::cpu, true);
}

#if GRIDSOLVE_HAVE_HYPRE
// HYPRE's PFMG-PCG fed from each rank's part reaches our one-process PCG answer, on the
// side kinds, masks, coefficients and dimensions the solvers above meet; it refuses what
// it cannot do (float, a singular problem) with a message.
TEST(MpiSolvers, HyprePfmgReachesOurAnswer) {
  const int n = Communicator::world().size();
  auto check = [&](const ModelProblem& m, std::array<int, 3> grid) {
    const std::string what =
        std::to_string(m.dims) + "D " + m.sides + ", mask " + m.mask + ", k " + m.coefficient;
    Discretization<double> whole = assemble<double>(make_model_problem(m), Device::cpu);
    Parted part = split(whole, grid, !whole.op.mask.empty());
    const SolveReport ours =
        make_solver<double>("pcg")->solve(whole.op, whole.u, residual_rule(1e-12));
    const SolveReport theirs =
        make_solver<double>("hypre-pfmg")->solve(part.op, part.u, residual_rule(1e-10));
    ASSERT_TRUE(ours.converged) << what;
    EXPECT_TRUE(theirs.converged) << what << ": " << theirs.reason;
    EXPECT_LT(theirs.relative_residual, 1e-10) << what;
    EXPECT_LT(theirs.iterations, 40) << what;  // multigrid: a few dozen at most
    const auto [largest, worst] = agreement(whole.u, part.u);
    EXPECT_LE(worst, 1e-8 * largest) << what << " on a " << part.parts->describe() << " grid";
  };
  ModelProblem m;
  m.n = 33;
  check(m, {0, 0, 0});
  m.sides = "periodic";
  check(m, {n, 1, 1});
  m.sides = "robin";
  m.coefficient = "variable";
  m.mask = "hole";
  check(m, {1, n, 1});
  m.sides = "neumann";
  m.mask = "fixed";
  check(m, {0, 0, 0});
  ModelProblem cube;
  cube.dims = 3;
  cube.n = 13;
  check(cube, {0, 0, 0});

  Discretization<double> singular = assemble<double>(
      make_model_problem(ModelProblem{.n = 17, .sides = "periodic-all"}), Device::cpu);
  Parted part = split(singular);
  try {
    make_solver<double>("hypre-pfmg")->solve(part.op, part.u, residual_rule(1e-8));
    ADD_FAILURE() << "hypre-pfmg solved a singular problem";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fixed value"), std::string::npos) << e.what();
  }
  Discretization<float> single =
      assemble<float>(make_model_problem(ModelProblem{.n = 17}), Device::cpu);
  try {
    make_solver<float>("hypre-pfmg")->solve(single.op, single.u, residual_rule(1e-4));
    ADD_FAILURE() << "hypre-pfmg solved in float";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("double"), std::string::npos) << e.what();
  }
}
#endif

TEST(MpiSolvers, OthersRefuseSeveralRanks) {
  ModelProblem m;
  m.n = 9;
  Discretization<double> whole = assemble<double>(make_model_problem(m), Device::cpu);
  Parted part = split(whole);
  for (const char* name : {"gs", "buneman"}) {
    try {
      make_solver<double>(name)->solve(part.op, part.u, residual_rule(1e-8));
      ADD_FAILURE() << name << " solved an operator on ranks";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("several ranks"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gridsolve
