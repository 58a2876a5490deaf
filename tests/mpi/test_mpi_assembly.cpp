// Assembly on each rank's box: the part a rank assembles alone equals the part cut from the
// whole operator, value for value (rows of the box and of its ghosts, marks, right-hand side,
// fixed values), on 1-4 ranks; and solving the parts gives the whole problem's answer.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/field_part.hpp"
#include "gridsolve/problem/assemble_axisymmetric.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/problem/stencil_operator_part.hpp"
#include "gridsolve/solve/solve_on_ranks.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve {
namespace {

// An (r, z) problem with everything a row can hold: a cut-out whose surface carries a
// flux, a fixed region, Neumann, Robin and Dirichlet sides, k and f as formulas.
ProblemSpec axisymmetric_spec(int nr, int nz) {
  ProblemSpec spec;
  spec.grid = Grid::box(2, {nr, nz, 1}, {0, 0, 0}, {1.0, 1.5, 0});
  spec.grid.geometry = Geometry::axisymmetric;
  spec.k = Expression::parse("1 + 0.5 * x * y");
  spec.f = Expression::parse("sin(3 * x) + y");
  for (BoundaryCondition& bc : spec.boundaries) {
    bc.kind = BoundaryKind::neumann;
    bc.g = Expression::value(0.25);
  }
  spec.boundaries[x_high].kind = BoundaryKind::robin;
  spec.boundaries[x_high].alpha = 2;
  spec.boundaries[y_low].kind = BoundaryKind::dirichlet;
  spec.boundaries[y_low].g = Expression::parse("x * x");
  MaskRegion hole;
  hole.kind = NodeKind::outside;
  hole.lo = {-0.1, -0.1, 0};
  hole.hi = {0.35, 0.6, 0};
  spec.regions.push_back(hole);
  MaskRegion fixed;
  fixed.kind = NodeKind::fixed;
  fixed.lo = {0.6, 1.0, 0};
  fixed.hi = {0.8, 1.2, 0};
  fixed.value = Expression::value(3);
  spec.regions.push_back(fixed);
  return spec;
}

double cut_flux(double r, double z, int axis, int sign) {
  return sign * (axis == 1 ? 2.0 + r : 0.5 * z);
}

// The largest difference between two fields over what `part` holds, ghosts included
// (within the grid), over every rank.
template <class V>
double worst_difference(const Field<V>& part, const Field<V>& cut, const Box& nodes) {
  const Box b = part.interior().grown(1).intersect(nodes);
  const FieldView<const V> a = part.cview(), c = cut.cview();
  double worst = 0;
  for (int j = b.lo[1]; j <= b.hi[1]; ++j)
    for (int i = b.lo[0]; i <= b.hi[0]; ++i)
      worst = std::max(worst, std::fabs(double(a(i, j, 0)) - double(c(i, j, 0))));
  return Communicator::world().max(worst);
}

// Every rank assembles its part on `device` and compares it with the part it cuts from the
// whole operator assembled on the CPU.
void expect_parts_equal_cuts(Device device) {
  const Communicator& comm = Communicator::world();
  const ProblemSpec spec = axisymmetric_spec(41, 61);
  const Discretization<double> whole = assemble_axisymmetric<double>(spec, Device::cpu, cut_flux);
  for (const std::array<int, 3> grid :
       {std::array<int, 3>{0, 0, 0}, std::array<int, 3>{comm.size(), 1, 1}}) {
    RankPart part;
    part.parts = std::make_shared<const Decomposition>(spec.grid.box(Centring::node()), 2,
                                                       comm.size(), std::array<bool, 3>{}, grid);
    part.rank = comm.rank();
    const Discretization<double> on_device =
        assemble_axisymmetric<double>(spec, device, cut_flux, part);
    EXPECT_EQ(on_device.op.device, device);
    const Discretization<double> mine{on_device.op.copy_to(Device::cpu),
                                      on_device.u.copy_to(Device::cpu)};
    const StencilOperator<double> cut = operator_part(whole.op, part.parts, part.rank);
    const Field<double> u_cut = field_part(whole.u, part.parts, part.rank);
    const Box nodes = spec.grid.nodes();
    // The GPU may fuse a multiply and an add where the CPU rounds twice (values are O(1)).
    const double tol = device == Device::cpu ? 0.0 : 1e-13;
    const std::string what = "on a " + part.parts->describe() + " grid, " + to_string(device);
    EXPECT_EQ(mine.op.unknowns, whole.op.unknowns) << what;
    EXPECT_EQ(mine.op.active.lo, cut.active.lo) << what;
    EXPECT_EQ(mine.op.active.hi, cut.active.hi) << what;
    EXPECT_EQ(mine.op.global_active.hi, whole.op.active.hi) << what;
    EXPECT_EQ(mine.op.parts.get(), part.parts.get()) << what;
    EXPECT_EQ(mine.op.jacobi_radius, whole.op.jacobi_radius) << what;
    EXPECT_LE(worst_difference(mine.op.ap, cut.ap, nodes), tol) << what;
    EXPECT_LE(worst_difference(mine.op.aw, cut.aw, nodes), tol) << what;
    EXPECT_LE(worst_difference(mine.op.ae, cut.ae, nodes), tol) << what;
    EXPECT_LE(worst_difference(mine.op.as, cut.as, nodes), tol) << what;
    EXPECT_LE(worst_difference(mine.op.an, cut.an, nodes), tol) << what;
    EXPECT_LE(worst_difference(mine.op.rhs, cut.rhs, nodes), tol) << what;
    EXPECT_EQ(worst_difference(mine.op.mask, cut.mask, nodes), 0.0) << what;
    EXPECT_EQ(worst_difference(mine.u, u_cut, nodes), 0.0) << what;
  }
}

// The same over a 3D part's held nodes.
template <class V>
double worst_difference3(const Field<V>& part, const Field<V>& cut, const Box& nodes) {
  Box b = part.interior().grown(1).intersect(nodes);
  const FieldView<const V> a = part.cview(), c = cut.cview();
  double worst = 0;
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i)
        worst = std::max(worst, std::fabs(double(a(i, j, k)) - double(c(i, j, k))));
  return Communicator::world().max(worst);
}

TEST(MpiAssembly, AxisymmetricPartEqualsTheCutOfTheWhole) {
  expect_parts_equal_cuts(Device::cpu);
}

// The GPU's loop bodies do the same arithmetic: the same marks, the values to rounding.
TEST(MpiAssembly, AxisymmetricPartOnTheGpu) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU: " << cuda_unavailable_reason();
  expect_parts_equal_cuts(Device::cuda);
}

// The Cartesian operator: uniform rows (a formula source, a fixed box), per-node rows
// (variable k, Neumann and Robin sides), the all-Neumann problem (its source made
// compatible over every rank), in 2D and 3D, on even and slab process grids.
void expect_cartesian_parts_equal_cuts(const ProblemSpec& spec, Device device,
                                       const std::string& what_problem) {
  const Communicator& comm = Communicator::world();
  ASSERT_TRUE(assembles_on_ranks(spec)) << what_problem;
  const Discretization<double> whole = assemble<double>(spec, Device::cpu);
  const int d = spec.grid.dims;
  for (const std::array<int, 3> grid :
       {std::array<int, 3>{0, 0, 0},
        d == 3 ? std::array<int, 3>{1, 1, comm.size()} : std::array<int, 3>{1, comm.size(), 1}}) {
    RankPart part;
    part.parts = std::make_shared<const Decomposition>(spec.grid.box(Centring::node()), d,
                                                       comm.size(), std::array<bool, 3>{}, grid);
    part.rank = comm.rank();
    const Discretization<double> on_device = assemble<double>(spec, device, part);
    const Discretization<double> mine{on_device.op.copy_to(Device::cpu),
                                      on_device.u.copy_to(Device::cpu)};
    const StencilOperator<double> cut = operator_part(whole.op, part.parts, part.rank);
    const Field<double> u_cut = field_part(whole.u, part.parts, part.rank);
    const Box nodes = spec.grid.nodes();
    const std::string what = what_problem + " on a " + part.parts->describe() + " grid, " +
                             to_string(device);
    // The all-Neumann source's mean is summed rank by rank: the same to rounding only.
    const double tol = device == Device::cpu && !whole.op.singular ? 0.0 : 1e-12;
    EXPECT_EQ(mine.op.unknowns, whole.op.unknowns) << what;
    EXPECT_EQ(mine.op.uniform, whole.op.uniform) << what;
    EXPECT_EQ(mine.op.active.lo, cut.active.lo) << what;
    EXPECT_EQ(mine.op.active.hi, cut.active.hi) << what;
    EXPECT_EQ(mine.op.global_active.hi, whole.op.active.hi) << what;
    EXPECT_EQ(mine.op.singular, whole.op.singular) << what;
    EXPECT_NEAR(mine.op.rhs_mismatch, whole.op.rhs_mismatch, 1e-14) << what;
    EXPECT_EQ(mine.op.b_const, whole.op.b_const) << what;
    EXPECT_EQ(mine.op.cp, whole.op.cp) << what;
    auto same = [&](const Field<double>& a, const Field<double>& b, const char* name) {
      EXPECT_EQ(a.empty(), b.empty()) << what << " " << name;
      if (!a.empty() && !b.empty()) {
        EXPECT_LE(worst_difference3(a, b, nodes), tol) << what << " " << name;
      }
    };
    same(mine.op.ap, cut.ap, "ap"), same(mine.op.aw, cut.aw, "aw"), same(mine.op.ae, cut.ae, "ae");
    same(mine.op.as, cut.as, "as"), same(mine.op.an, cut.an, "an"), same(mine.op.ab, cut.ab, "ab");
    same(mine.op.at, cut.at, "at"), same(mine.op.rhs, cut.rhs, "rhs"), same(mine.u, u_cut, "u");
    EXPECT_EQ(mine.op.mask.empty(), cut.mask.empty()) << what;
    if (!mine.op.mask.empty() && !cut.mask.empty()) {
      EXPECT_EQ(worst_difference3(mine.op.mask, cut.mask, nodes), 0.0) << what << " mask";
    }
  }
}

std::vector<std::pair<std::string, ProblemSpec>> cartesian_problems() {
  std::vector<std::pair<std::string, ProblemSpec>> out;
  ModelProblem m;
  m.n = 37;
  m.mask = "fixed";
  out.emplace_back("uniform 2D, fixed box", make_model_problem(m));
  m.coefficient = "variable";
  m.sides = "robin";
  out.emplace_back("variable k, Robin sides", make_model_problem(m));
  m.sides = "neumann";
  m.mask = "none";
  out.emplace_back("variable k, Neumann sides", make_model_problem(m));
  ModelProblem cube;
  cube.dims = 3;
  cube.n = 13;
  cube.coefficient = "variable";
  cube.sides = "robin";
  out.emplace_back("3D variable k, Robin sides", make_model_problem(cube));
  cube.coefficient = "constant";
  cube.sides = "dirichlet";
  cube.rhs = "random";
  out.emplace_back("3D uniform, random source", make_model_problem(cube));
  // Every side Neumann, nothing fixed: the source's mean removed over all ranks.
  ProblemSpec floating = make_model_problem(m);
  for (BoundaryCondition& bc : floating.boundaries) {
    bc.kind = BoundaryKind::neumann;
    bc.g = Expression::value(0.0);
  }
  floating.f = Expression::parse("cos(3.14159 * x) * cos(3.14159 * y) + 0.001");
  floating.exact.reset();
  out.emplace_back("all Neumann", floating);
  return out;
}

TEST(MpiAssembly, CartesianPartEqualsTheCutOfTheWhole) {
  for (const auto& [what, spec] : cartesian_problems()) {
    try {
      expect_cartesian_parts_equal_cuts(spec, Device::cpu, what);
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": " << e.what();
    }
  }
}

TEST(MpiAssembly, CartesianPartOnTheGpu) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU: " << cuda_unavailable_reason();
  for (const auto& [what, spec] : cartesian_problems())
    expect_cartesian_parts_equal_cuts(spec, Device::cuda, what);
}

TEST(MpiAssembly, PartsAssembledAloneSolveToTheWholeAnswer) {
  const ProblemSpec spec = axisymmetric_spec(65, 97);
  Discretization<double> whole = assemble_axisymmetric<double>(spec, Device::cpu, cut_flux);
  ResolvedSolve r;
  r.solver = &find_solver("mgcg");
  r.device = Device::cpu;
  r.options.tolerance = 1e-10;
  const SolveReport one = run_solve<double>(r, whole.op, whole.u);
  const Communicator& comm = Communicator::world();
  RankPart part;
  part.parts = std::make_shared<const Decomposition>(spec.grid.box(Centring::node()), 2,
                                                     comm.size());
  part.rank = comm.rank();
  Discretization<double> mine = assemble_axisymmetric<double>(spec, Device::cpu, cut_flux, part);
  Field<double> gathered;
  RanksUsed used;
  const SolveReport many =
      solve_parts<double>(r, mine.op, mine.u, gathered, used, SolutionOn::every_rank);
  EXPECT_TRUE(one.converged && many.converged) << one.reason << " / " << many.reason;
  EXPECT_EQ(many.iterations, one.iterations);  // multigrid's levels are the whole ones, split
  EXPECT_EQ(used.ranks, comm.size());
  std::int64_t counted = 0;
  for (const std::int64_t n : used.unknowns_per_rank) counted += n;
  EXPECT_EQ(counted, whole.op.unknowns);
  ASSERT_FALSE(gathered.empty());
  double largest = 0, worst = 0;
  const FieldView<const double> a = whole.u.cview(), b = gathered.cview();
  for (int j = 0; j < spec.grid.n[1]; ++j)
    for (int i = 0; i < spec.grid.n[0]; ++i) {
      largest = std::max(largest, std::fabs(a(i, j, 0)));
      worst = std::max(worst, std::fabs(a(i, j, 0) - b(i, j, 0)));
    }
  EXPECT_GT(largest, 0.1);
  EXPECT_LE(worst, 1e-9 * largest);
}

}  // namespace
}  // namespace gridsolve
