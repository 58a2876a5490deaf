// Multigrid and conjugate gradients: grid-independent convergence, agreement with SOR,
// masks, coefficient jumps, all-Neumann problems.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/solve/multigrid/coarsening.hpp"
#include "gridsolve/solve/multigrid/multigrid.hpp"
#include "test_helpers.hpp"

namespace gridsolve {
namespace {

ProblemSpec random_poisson(int dims, int n) {
  return testing::random_poisson(dims, n, 11);
}

// A model problem of the given size, sides and mask (the other settings their defaults).
ModelProblem model_problem(int dims, int n, const char* sides, const char* mask) {
  ModelProblem m;
  m.dims = dims;
  m.n = n;
  m.sides = sides;
  m.mask = mask;
  return m;
}

SolveReport run(const ProblemSpec& spec, const std::string& solver, Discretization<double>& d,
                MultigridOptions mg = {}, double tol = 1e-8) {
  d = assemble<double>(spec, Device::cpu);
  SolveOptions o;
  o.tolerance = tol;
  o.max_iterations = 200;
  return make_solver<double>(solver, mg)->solve(d.op, d.u, o);
}

// Mean residual reduction per V(2,2) cycle, from the second cycle on.
double v22_factor(int dims, int n) {
  Discretization<double> d;
  const SolveReport r = run(random_poisson(dims, n), "mg", d);
  EXPECT_TRUE(r.converged) << r.reason;
  EXPECT_LE(r.iterations, 10) << "n = " << n;
  return r.convergence_factor;
}

TEST(Multigrid, V22FactorIsSmallAndGridIndependent2D) {
  std::vector<double> f;
  for (int n : {129, 257, 1025, 4097}) {
    f.push_back(v22_factor(2, n));
    EXPECT_LE(f.back(), 0.1) << "n = " << n;
    EXPECT_GT(f.back(), 0.0);
  }
  EXPECT_LE(*std::max_element(f.begin(), f.end()) - *std::min_element(f.begin(), f.end()), 0.02);
}

TEST(Multigrid, V22FactorIsSmallAndGridIndependent3D) {
  std::vector<double> f;
  for (int n : {33, 65, 129}) {
    f.push_back(v22_factor(3, n));
    EXPECT_LE(f.back(), 0.1) << "n = " << n;
  }
  EXPECT_LE(*std::max_element(f.begin(), f.end()) - *std::min_element(f.begin(), f.end()), 0.02);
}

// The coarse levels of a constant-coefficient box have rows all alike: they are held as the
// uniform rows' numbers (no coefficient arrays, no mask), and the cycle converges as before.
// Variable coefficients keep per-node rows.
TEST(Multigrid, CoarseLevelsOfAConstantCoefficientBoxAreUniform) {
  for (const int dims : {2, 3}) {
    ModelProblem m;
    m.dims = dims;
    m.n = dims == 2 ? 257 : 33;
    m.rhs = "random";
    const Discretization<double> d = assemble<double>(make_model_problem(m), Device::cpu);
    ASSERT_TRUE(d.op.uniform);
    const MultigridHierarchy<double> h(d.op, MultigridOptions{});
    const int coarse = h.levels() - 1;
    ASSERT_GE(coarse, 3);
    EXPECT_NE(
        h.describe().find(fmt::format("uniform rows on {} of {} coarse levels", coarse, coarse)),
        std::string::npos)
        << h.describe();
    m.coefficient = "variable";
    const Discretization<double> v = assemble<double>(make_model_problem(m), Device::cpu);
    const MultigridHierarchy<double> hv(v.op, MultigridOptions{});
    EXPECT_EQ(hv.describe().find("uniform rows"), std::string::npos) << hv.describe();
    // On the host every level is cycled by loops of its own (the one-block cycle is a GPU's).
    EXPECT_EQ(hv.block_start(), 0);
    EXPECT_EQ(hv.describe().find("in one block"), std::string::npos) << hv.describe();
  }
  // A constant k given per node assembles per-node rows at the finest level, which keep
  // per-node rows below (only a uniform level's coarsening is tested for alike rows): the
  // two hierarchies take the same cycles to the same answer.
  ModelProblem m;
  m.n = 129;
  m.rhs = "random";
  ProblemSpec per_node = make_model_problem(m);
  per_node.k_nodes.assign(std::size_t(per_node.grid.node_count()), 1.0);
  Discretization<double> a, b;
  const SolveReport ra = run(make_model_problem(m), "mg", a, {}, 1e-10);
  const SolveReport rb = run(per_node, "mg", b, {}, 1e-10);
  ASSERT_FALSE(b.op.uniform);
  EXPECT_EQ(ra.iterations, rb.iterations);
  const std::vector<double> ua = a.u.to_vector(), ub = b.u.to_vector();
  double diff = 0, scale = 0;
  for (std::size_t n = 0; n < ua.size(); ++n)
    diff = std::max(diff, std::abs(ua[n] - ub[n])), scale = std::max(scale, std::abs(ua[n]));
  EXPECT_LE(diff, 1e-9 * scale);
}

TEST(Multigrid, AnyGridSizeConvergesAsFast) {
  for (int n : {64, 100, 250, 1000}) {
    const double f = v22_factor(2, n);
    EXPECT_LE(f, 0.1) << "n = " << n;
  }
  EXPECT_LE(v22_factor(3, 50), 0.12);
}

class AgreesWithSor
    : public ::testing::TestWithParam<std::tuple<int, std::string, std::string, std::string>> {};

TEST_P(AgreesWithSor, SameDiscreteSolution) {
  const auto& [dims, sides, mask, k] = GetParam();
  ModelProblem m;
  m.dims = dims;
  m.n = dims == 2 ? 65 : 17;
  m.sides = sides;
  m.mask = mask;
  m.coefficient = k;
  const ProblemSpec spec = make_model_problem(m);
  auto ref = testing::solve_spec<double>(spec, "sor", 1e-12);
  ASSERT_TRUE(ref.report.converged);
  const double scale = testing::max_abs(ref.d.u);
  for (const char* name : {"mg", "mgcg", "mgcg-mixed", "cg", "pcg"}) {
    auto s = testing::solve_spec<double>(spec, name, 1e-12);
    EXPECT_TRUE(s.report.converged) << name << ": " << s.report.reason;
    EXPECT_LT(testing::max_difference(s.d.u, ref.d.u) / scale, 1e-9) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(Problems, AgreesWithSor,
                         ::testing::Values(std::make_tuple(2, "dirichlet", "none", "constant"),
                                           std::make_tuple(2, "neumann", "hole", "variable"),
                                           std::make_tuple(2, "robin", "fixed", "variable"),
                                           std::make_tuple(3, "neumann", "none", "variable"),
                                           std::make_tuple(3, "dirichlet", "hole", "constant")));

TEST(Multigrid, CycleShapesAndSmoothersAllConverge) {
  const ProblemSpec spec = random_poisson(2, 257);
  struct Shape {
    std::string cycle, smoother;
    int pre, post;
    bool fmg;
  } shapes[] = {{"V", "rb-gs", 1, 1, false},
                {"W", "rb-gs", 2, 2, false},
                {"F", "rb-gs", 2, 2, false},
                {"V", "jacobi", 3, 3, false},
                {"V", "rb-gs", 2, 2, true}};
  for (const Shape& s : shapes) {
    MultigridOptions o = MultigridOptions::parse(s.cycle, s.pre, s.post, s.smoother);
    o.full_multigrid = s.fmg;
    Discretization<double> d;
    const SolveReport r = run(spec, "mg", d, o);
    EXPECT_TRUE(r.converged) << s.cycle << " " << s.smoother << ": " << r.reason;
    EXPECT_LE(r.iterations, s.smoother == "jacobi" ? 25 : 14) << s.cycle << " " << s.smoother;
  }
}

TEST(Multigrid, BadOptionsAreErrors) {
  EXPECT_THROW(MultigridOptions::parse("X", 2, 2, "rb-gs"), Error);
  EXPECT_THROW(MultigridOptions::parse("V", 0, 0, "rb-gs"), Error);
  EXPECT_THROW(MultigridOptions::parse("V", 2, 2, "ilu"), Error);
  // validate() rejects `o`, naming `option` in its message.
  auto expect_rejected = [](const MultigridOptions& o, const std::string& option) {
    try {
      o.validate();
      ADD_FAILURE() << option << " passed";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
    }
  };
  MultigridOptions negative;  // how deep levels stay split on ranks: never below zero
  negative.split_nodes = -1;
  expect_rejected(negative, "split_nodes");
  MultigridOptions block;  // the levels one GPU block cycles: -1 (the default), 0 (none) or more
  block.block_nodes = -2;
  expect_rejected(block, "block_nodes");
  block.block_nodes = 0;
  EXPECT_NO_THROW(block.validate());
  EXPECT_EQ(block_level_nodes(block), 0);
  EXPECT_GT(block_level_nodes(MultigridOptions{}), 0);
  MultigridOptions lines;  // the levels that take line sweeps: -1 (the default), 0 (all) or more
  lines.line_nodes = -2;
  expect_rejected(lines, "line_nodes");
  lines.line_nodes = 0;
  EXPECT_EQ(line_level_nodes(lines), 0);
  EXPECT_EQ(to_string(parse_smoother("line")), std::string("line"));
}

// k = 1000 inside a square, 1 outside; mixed sides; an L-shaped cut-out.
TEST(Multigrid, PcgHandlesThousandToOneJumpWithMaskAndMixedSides) {
  for (int dims : {2, 3}) {
    ModelProblem m;
    m.dims = dims;
    m.n = dims == 2 ? 257 : 41;
    m.sides = "neumann";
    m.mask = "hole";
    ProblemSpec spec = make_model_problem(m);
    spec.exact.reset();
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-1, 1);
    const Grid& g = spec.grid;
    spec.f_nodes.resize(std::size_t(g.node_count()));
    spec.k_nodes.resize(std::size_t(g.node_count()));
    std::size_t n = 0;
    for (int k = 0; k < g.n[2]; ++k)
      for (int j = 0; j < g.n[1]; ++j)
        for (int i = 0; i < g.n[0]; ++i, ++n) {
          spec.f_nodes[n] = u(rng);
          const double x = g.coord(0, i), y = g.coord(1, j), z = dims == 3 ? g.coord(2, k) : 0.3;
          const bool inside = x > 0.1 && x < 0.45 && y > 0.2 && y < 0.45 && z > 0.1 && z < 0.45;
          spec.k_nodes[n] = inside ? 1000.0 : 1.0;
        }
    Discretization<double> d;
    const SolveReport r = run(spec, "mgcg", d);
    EXPECT_TRUE(r.converged) << r.reason;
    EXPECT_LT(r.iterations, 30) << dims << "D";
    Discretization<double> ref;
    const SolveReport rs = run(spec, "mg", ref, {}, 1e-8);
    EXPECT_TRUE(rs.converged) << "plain multigrid: " << rs.reason << " factor "
                              << rs.convergence_factor;
    std::printf("%dD jump: mgcg %d iterations, mg %d cycles (factor %.3f)\n", dims, r.iterations,
                rs.iterations, rs.convergence_factor);
  }
}

// Cells ten times longer in x than in y (every row's y couplings 100 times its x ones):
// red-black point relaxation leaves errors smooth along y and rough along x, which full
// coarsening cannot represent, and the V-cycle stalls; zebra lines along y (the strongest
// axis, found by the hierarchy) solve those errors out. Constant rows, and per-node rows (a
// variable coefficient, an L-shaped cut-out) that take the reduction over the level. Both
// smoothers must reach the same discrete solution; the lines within a few cycles.
TEST(Multigrid, LineRelaxationSolvesStretchedCellsInAFewCycles) {
  struct Case {
    const char *k, *mask, *rhs;
  } cases[] = {{"constant", "none", "random"}, {"variable", "hole", "manufactured"}};
  for (const Case& c : cases) {
    ProblemSpec spec = testing::model(2, 129, "dirichlet", c.mask, c.k, c.rhs);
    spec.grid = Grid::box(2, {129, 129, 1}, {0, 0, 0}, {10, 1, 1});
    Discretization<double> point, lines, krylov;
    const SolveReport rp =
        run(spec, "mg", point, MultigridOptions::parse("V", 2, 2, "rb-gs"), 1e-10);
    // (every level: the default leaves the small ones to points, where a GPU's launch of a
    // line sweep costs more than it saves; on cells 10:1 everywhere that takes 23 cycles)
    MultigridOptions every = MultigridOptions::parse("V", 2, 2, "line");
    every.line_nodes = 0;
    const SolveReport rl = run(spec, "mg", lines, every, 1e-10);
    // The reference: conjugate gradients, which point relaxation serves as a preconditioner.
    const SolveReport rk = run(spec, "mgcg", krylov, {}, 1e-12);
    ASSERT_TRUE(rk.converged) << c.k << ": " << rk.reason;
    ASSERT_TRUE(rl.converged) << c.k << ": " << rl.reason;
    EXPECT_NE(rl.kernel.find("lines along y"), std::string::npos) << rl.kernel;
    EXPECT_LE(rl.iterations, 12) << c.k;
    EXPECT_LE(rl.convergence_factor, 0.15) << c.k;
    EXPECT_GT(rp.convergence_factor, 0.5) << c.k << ": point relaxation no longer stalls here";
    EXPECT_GT(rp.iterations, 3 * rl.iterations) << c.k;
    const std::vector<double> a = krylov.u.to_vector(), b = lines.u.to_vector();
    double diff = 0, size = 0;
    for (std::size_t q = 0; q < a.size(); ++q)
      diff = std::max(diff, std::abs(a[q] - b[q])), size = std::max(size, std::abs(a[q]));
    EXPECT_LE(diff, 1e-7 * size) << c.k;
    std::printf("%s rows, cells 10:1: lines %d cycles (factor %.3f), points %d (factor %.3f)\n",
                c.k, rl.iterations, rl.convergence_factor, rp.iterations, rp.convergence_factor);
  }
  // 3D, cells ten times longer in y than in x and z: lines along x or z (the strong
  // couplings are in a plane, so lines help less); the same answer as the reference.
  {
    ProblemSpec spec = testing::model(3, 33, "dirichlet", "none", "variable", "manufactured");
    spec.grid = Grid::box(3, {33, 33, 33}, {0, 0, 0}, {1, 10, 1});
    MultigridOptions every = MultigridOptions::parse("V", 2, 2, "line");
    every.line_nodes = 0;
    Discretization<double> lines, krylov;
    const SolveReport rl = run(spec, "mg", lines, every, 1e-10);
    const SolveReport rk = run(spec, "mgcg", krylov, {}, 1e-12);
    ASSERT_TRUE(rl.converged && rk.converged) << rl.reason << " / " << rk.reason;
    EXPECT_TRUE(rl.kernel.find("lines along x") != std::string::npos ||
                rl.kernel.find("lines along z") != std::string::npos)
        << rl.kernel;
    const std::vector<double> a = krylov.u.to_vector(), b = lines.u.to_vector();
    double diff = 0, size = 0;
    for (std::size_t q = 0; q < a.size(); ++q)
      diff = std::max(diff, std::abs(a[q] - b[q])), size = std::max(size, std::abs(a[q]));
    EXPECT_LE(diff, 1e-7 * size);
    std::printf("3D, cells 10:1:1: lines %d cycles (factor %.3f)\n", rl.iterations,
                rl.convergence_factor);
  }
  // Lines need a whole axis: along a periodic one (a cyclic system) the level keeps points.
  ProblemSpec periodic = testing::model(2, 65, "periodic", "none", "constant");
  periodic.grid = Grid::box(2, {65, 65, 1}, {0, 0, 0}, {1, 10, 1});  // strongest along x
  Discretization<double> d;
  MultigridOptions every = MultigridOptions::parse("V", 2, 2, "line");
  every.line_nodes = 0;
  const SolveReport r = run(periodic, "mg", d, every, 1e-8);
  EXPECT_EQ(r.kernel.find("lines along"), std::string::npos) << r.kernel;
}

// cos(2 pi x) cos(2 pi y): zero normal derivative on every side of the unit square.
TEST(Multigrid, AllNeumannProblemIsSolvedWithZeroMeanAndOrderTwo) {
  double errors[2];
  for (int level = 0; level < 2; ++level) {
    ProblemSpec spec;
    spec.grid = Grid::unit(2, 65 * (1 << level) - (1 << level) + 1);
    for (auto& bc : spec.boundaries) {
      bc.kind = BoundaryKind::neumann;
      bc.g = Expression::value(0);
    }
    const double w = 2 * std::numbers::pi;
    spec.f = Expression::from(
        [w](double x, double y, double) { return 2 * w * w * std::cos(w * x) * std::cos(w * y); },
        "f");
    spec.exact = Expression::from(
        [w](double x, double y, double) { return std::cos(w * x) * std::cos(w * y); }, "u");
    for (const char* name : {"mgcg", "mg"}) {
      Discretization<double> d;
      const SolveReport r = run(spec, name, d, {}, 1e-10);
      ASSERT_TRUE(r.converged) << name << ": " << r.reason;
      EXPECT_TRUE(d.op.singular);
      double mean = 0;
      for (double v : d.u.to_vector()) mean += v;
      EXPECT_NEAR(mean / double(spec.grid.node_count()), 0.0, 1e-9);
      // The exact solution has zero mean too, so the constant is the same.
      errors[level] = testing::max_error(spec, d);
    }
  }
  EXPECT_NEAR(std::log2(errors[0] / errors[1]), 2.0, 0.1);
}

TEST(Multigrid, FloatSolveReachesSinglePrecisionResidual) {
  const ProblemSpec spec = random_poisson(2, 513);
  auto d = assemble<float>(spec, Device::cpu);
  SolveOptions o;
  o.tolerance = 1e-5;
  const SolveReport r = make_solver<float>("mgcg")->solve(d.op, d.u, o);
  EXPECT_TRUE(r.converged) << r.reason;
  EXPECT_LT(r.relative_residual, 1e-4);
}

}  // namespace
}  // namespace gridsolve

namespace gridsolve {
namespace {

// Grids too small to coarsen: the one level is solved exactly, in one cycle, including
// an all-Neumann (singular) one.
TEST(Multigrid, SingleLevelGridsAreSolvedExactly) {
  struct Small {
    int dims, n;
    const char *sides, *mask;
  } cases[] = {{2, 3, "dirichlet", "none"}, {2, 4, "dirichlet", "none"}, {2, 5, "dirichlet", "hole"},
               {3, 4, "robin", "none"},     {2, 4, "neumann", "hole"}};
  for (const Small& c : cases) {
    const ProblemSpec spec = make_model_problem(model_problem(c.dims, c.n, c.sides, c.mask));
    for (const char* solver : {"mg", "mgcg"}) {
      Discretization<double> d;
      const SolveReport r = run(spec, solver, d, {}, 1e-12);
      EXPECT_TRUE(r.converged) << c.n << " " << c.sides << " " << solver << ": " << r.reason;
      EXPECT_LE(r.iterations, 2) << c.n << " " << c.sides << " " << solver;
    }
  }
  ProblemSpec spec;
  spec.grid = Grid::unit(2, 5);
  for (auto& bc : spec.boundaries) bc.kind = BoundaryKind::neumann;
  spec.f = Expression::parse("cos(pi*x)");
  Discretization<double> d;
  const SolveReport r = run(spec, "mg", d, {}, 1e-12);
  EXPECT_TRUE(r.converged) << r.reason;
  EXPECT_LE(r.iterations, 2);
}

// update(op): new coefficients on the same structure refresh the hierarchy in place, and
// the next solve is exactly the solve a fresh setup of that operator gives.
TEST(MultigridUpdate, InPlaceRefreshEqualsAFreshSetup) {
  for (const char* sides : {"dirichlet", "periodic"}) {
    for (const char* solver : {"mg", "mgcg", "mgcg-mixed"}) {
      ModelProblem m;
      m.n = 65;
      m.sides = sides;
      m.coefficient = "variable";
      ProblemSpec first = make_model_problem(m);
      ProblemSpec second = first;
      second.k = Expression::from(
          [](double x, double y, double) { return 2 + std::cos(6.283185307179586 * x) * y; },
          "2 + cos(2 pi x) y");
      Discretization<double> a = assemble<double>(first, Device::cpu);
      Discretization<double> b = assemble<double>(second, Device::cpu);
      Discretization<double> c = assemble<double>(second, Device::cpu);
      SolveOptions o;
      o.tolerance = 1e-10;
      auto updated = make_solver<double>(solver);
      updated->setup(a.op);
      const SolveReport ra = updated->solve(a.u, o);
      ASSERT_TRUE(ra.converged) << ra.reason;
      updated->update(b.op);
      const SolveReport rb = updated->solve(b.u, o);
      auto fresh = make_solver<double>(solver);
      fresh->setup(c.op);
      const SolveReport rc = fresh->solve(c.u, o);
      ASSERT_TRUE(rb.converged && rc.converged) << rb.reason << " / " << rc.reason;
      EXPECT_EQ(rb.iterations, rc.iterations) << sides << " " << solver;
      EXPECT_EQ(b.u.to_vector(), c.u.to_vector()) << sides << " " << solver;
      // And the first operator's answer differs: the update did change the hierarchy.
      EXPECT_NE(a.u.to_vector(), b.u.to_vector());
    }
  }
}

// The restriction of a residual formed where it is read equals the restriction of the
// residual field to the bit: constant rows, a mask with variable coefficients, Robin
// sides, 2D and 3D, odd and even node counts.
TEST(MultigridTransfers, ResidualFormedInTheRestrictionIsTheResidualFieldRestricted) {
  struct Case {
    int dims, n;
    const char *sides, *mask, *k;
  } cases[] = {{2, 129, "dirichlet", "none", "constant"},
               {2, 100, "neumann", "hole", "variable"},
               {3, 33, "robin", "fixed", "variable"},
               {3, 30, "dirichlet", "none", "constant"}};
  for (const Case& c : cases) {
    ModelProblem m = model_problem(c.dims, c.n, c.sides, c.mask);
    m.coefficient = c.k;
    m.rhs = "manufactured";
    Discretization<double> d = assemble<double>(make_model_problem(m), Device::cpu);
    const Grid& g = d.op.grid;
    // A correction that is not a solution: random values on the free nodes.
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> pick(-1, 1);
    const FieldView<double> uv = d.u.view();
    const Box nodes = g.nodes();
    for (int k = nodes.lo[2]; k <= nodes.hi[2]; ++k)
      for (int j = nodes.lo[1]; j <= nodes.hi[1]; ++j)
        for (int i = nodes.lo[0]; i <= nodes.hi[0]; ++i) uv(i, j, k) += pick(rng);
    multigrid::Coarsening plan = multigrid::Coarsening::plan(g.n, g.dims, 5, 0);
    std::vector<double> x[3], w[3];
    for (int a = 0; a < 3; ++a) {
      for (int i = 0; i < g.n[a]; ++i) x[a].push_back(i);
      w[a].assign(x[a].size(), 1.0);
      for (std::size_t q = 1; q + 1 < x[a].size(); ++q) w[a][q] = 0.5;
      plan.fine_x[a] = x[a].data();
      plan.fine_lower_weight[a] = w[a].data();
    }
    const StencilView<double> fine = d.op.view();
    const multigrid::InterpolationWeights<double> weights =
        multigrid::interpolation_weights(fine, plan, g, Device::cpu);
    StencilOperator<double> coarse =
        multigrid::coarsen_operator(fine, plan, weights, g, Device::cpu);
    Field<double> r(g, Device::cpu), from_field(coarse.grid, Device::cpu),
        formed(coarse.grid, Device::cpu);
    d.op.residual(nullptr, d.u, r);
    multigrid::restrict_residual(r, weights, coarse.view(), from_field, plan, Device::cpu);
    multigrid::restrict_residual_of(fine, d.u, weights, coarse.view(), formed, plan, Device::cpu);
    const std::vector<double> a = from_field.to_vector(), b = formed.to_vector();
    EXPECT_EQ(a, b) << c.dims << "D " << c.sides << " " << c.mask;
    double largest = 0;
    for (double v : a) largest = std::max(largest, std::abs(v));
    EXPECT_GT(largest, 1e-3) << "the residual restricted is not all zero";
  }
}

}  // namespace
}  // namespace gridsolve
