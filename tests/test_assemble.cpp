// Assembly: fast-path selection, symmetry, masks, bad input.
#include <gtest/gtest.h>

#include "gridsolve/apps/heat/heat_plate.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/model_problems.hpp"

namespace gridsolve {
namespace {

TEST(Assemble, DirichletConstantProblemTakesUniformPath) {
  ModelProblem m;
  m.rhs = "random";
  m.n = 9;
  const auto d = assemble<double>(make_model_problem(m), Device::cpu);
  EXPECT_TRUE(d.op.uniform);
  EXPECT_EQ(d.op.unknowns, 7 * 7);
  EXPECT_DOUBLE_EQ(d.op.cp, 4.0);  // finite-volume scaling: h^2 * (4 / h^2)
  EXPECT_DOUBLE_EQ(d.op.cw, 1.0);
}

TEST(Assemble, HeatPlateIsUniformWithMask) {
  HeatPlate p;
  p.n = 33;
  p.patch = 0.25;
  const auto d = assemble<double>(make_heat_plate(p), Device::cpu);
  EXPECT_TRUE(d.op.uniform);
  EXPECT_FALSE(d.op.mask.empty());
  const std::vector<double> u = d.u.to_vector();
  EXPECT_EQ(u[16 + 33 * 16], 100.0);  // centre is hot
  EXPECT_EQ(u[0], 0.0);
  EXPECT_EQ(d.op.unknowns, 31 * 31 - 9 * 9);  // patch [0.375, 0.625] holds 9 x 9 nodes
}

// The finite-volume form is symmetric: a_E(P) == a_W(E) wherever both are unknowns.
TEST(Assemble, GeneralOperatorIsSymmetric) {
  ModelProblem m;
  m.n = 17;
  m.sides = "robin";
  m.mask = "hole";
  m.coefficient = "variable";
  const auto d = assemble<double>(make_model_problem(m), Device::cpu);
  ASSERT_FALSE(d.op.uniform);
  const auto mask = d.op.mask.cview();
  const auto ae = d.op.ae.cview(), aw = d.op.aw.cview(), an = d.op.an.cview(), as = d.op.as.cview();
  int checked = 0;
  for (int j = 0; j < 16; ++j)
    for (int i = 0; i < 16; ++i) {
      if (mask(i, j, 0) == 0 && mask(i + 1, j, 0) == 0) {
        EXPECT_NEAR(ae(i, j, 0), aw(i + 1, j, 0), 1e-14);
        ++checked;
      }
      if (mask(i, j, 0) == 0 && mask(i, j + 1, 0) == 0) {
        EXPECT_NEAR(an(i, j, 0), as(i, j + 1, 0), 1e-14);
      }
    }
  EXPECT_GT(checked, 100);
}

TEST(Assemble, HoleRemovesInteriorNodesOnly) {
  ModelProblem m;
  m.n = 9;
  m.mask = "hole";
  const auto d = assemble<double>(make_model_problem(m), Device::cpu);
  const auto mask = d.op.mask.cview();
  EXPECT_EQ(mask(4, 4, 0), 0);  // the re-entrant corner (0.5, 0.5) stays in the domain
  EXPECT_EQ(mask(5, 5, 0), 2);  // strictly inside the cut-out
  EXPECT_EQ(mask(4, 7, 0), 0);  // on the cut-out's side x = 0.5
}

TEST(Assemble, EmptyDomainIsAnError) {
  ModelProblem m;
  m.n = 9;
  m.rhs = "random";
  ProblemSpec spec = make_model_problem(m);
  MaskRegion all;
  all.kind = NodeKind::fixed;
  all.lo = {-1, -1, 0};
  all.hi = {2, 2, 0};
  spec.regions.push_back(all);
  try {
    assemble<double>(spec, Device::cpu);
    FAIL() << "an all-fixed domain was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
    EXPECT_EQ(e.kind(), Error::Kind::invalid_input);
  }
}

TEST(Assemble, AllNeumannIsSingularAndProjected) {
  ProblemSpec spec;
  spec.grid = Grid::unit(2, 9);
  for (auto& bc : spec.boundaries) bc.kind = BoundaryKind::neumann;
  spec.f = Expression::parse("cos(2*pi*x) + 0.001");  // balanced up to a small mismatch
  const auto d = assemble<double>(spec, Device::cpu);
  EXPECT_TRUE(d.op.singular);
  EXPECT_GT(d.op.rhs_mismatch, 0.0);
  double sum = 0;
  for (double b : d.op.rhs.to_vector()) sum += b;
  EXPECT_NEAR(sum, 0.0, 1e-12);
}

TEST(Assemble, AllNeumannWithUnbalancedSourceIsAnError) {
  ProblemSpec spec;
  spec.grid = Grid::unit(2, 9);
  for (auto& bc : spec.boundaries) bc.kind = BoundaryKind::neumann;
  spec.f = Expression::value(1.0);
  try {
    assemble<double>(spec, Device::cpu);
    FAIL() << "an all-Neumann problem with a net source was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no solution exists"), std::string::npos) << e.what();
  }
}

TEST(Assemble, BadSizesAreErrors) {
  EXPECT_THROW(Grid::unit(2, -5), Error);
  EXPECT_THROW(Grid::unit(4, 9), Error);
  ModelProblem m;
  m.n = 2;
  EXPECT_THROW(make_model_problem(m), Error);
}

TEST(Expression, FormulasAndErrors) {
  const Expression e = Expression::parse("sin(pi*x) + y*z");
  EXPECT_NEAR(e(0.5, 2, 3), 7.0, 1e-14);
  EXPECT_TRUE(Expression::parse(" 2.5 ").is_constant());
  try {
    Expression::parse("sin(x");
    FAIL();
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("malformed formula 'sin(x'"), std::string::npos)
        << err.what();
  }
  EXPECT_THROW(Expression::parse("q + 1"), Error);
}

}  // namespace
}  // namespace gridsolve
