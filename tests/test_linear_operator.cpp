// The operator interface: conjugate gradients on a matrix-free operator that is not a
// 5/7-point stencil, against a dense direct solve; one operator set up once and solved
// for many right-hand sides; a solve reports converged only on its true residual.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/linear_operator.hpp"
#include "gridsolve/solve/conjugate_gradient.hpp"
#include "gridsolve/solve/solver.hpp"
#include "gridsolve/solve/solver_registry.hpp"
#include "test_helpers.hpp"

extern "C" void dposv_(const char* uplo, const int* n, const int* nrhs, double* a, const int* lda,
                       double* b, const int* ldb, int* info);

namespace gridsolve {
namespace {

// The nine-point ("Mehrstellen") Laplacian on the interior nodes of the unit square,
// zero Dirichlet values around: (20 u_P - 4 sum edge neighbours - sum corner neighbours)
// / (6 h^2). Symmetric positive definite, and no 5-point stencil. Host loops: a test
// operator on the CPU.
class NinePointLaplacian final : public LinearOperator<double> {
 public:
  explicit NinePointLaplacian(int n) : grid_(Grid::unit(2, n)) {}
  OperatorShape shape() const override {
    OperatorShape s;
    s.grid = grid_;
    s.unknowns = Box{{1, 1, 0}, {grid_.n[0] - 2, grid_.n[1] - 2, 0}};
    return s;  // one component on the CPU, on one rank
  }
  double at(const FieldView<const double>& x, int i, int j) const {
    const double h = grid_.spacing[0];
    auto v = [&](int a, int b) { return inside(a, b) ? x(a, b, 0) : 0.0; };
    return (20 * v(i, j) - 4 * (v(i - 1, j) + v(i + 1, j) + v(i, j - 1) + v(i, j + 1)) -
            (v(i - 1, j - 1) + v(i + 1, j - 1) + v(i - 1, j + 1) + v(i + 1, j + 1))) /
           (6 * h * h);
  }
  bool inside(int i, int j) const {
    return i >= 1 && j >= 1 && i <= grid_.n[0] - 2 && j <= grid_.n[1] - 2;
  }
  void apply(const Field<double>& x, Field<double>& y) const override {
    const auto xv = x.cview();
    const auto yv = y.view();
    for (int j = 0; j < grid_.n[1]; ++j)
      for (int i = 0; i < grid_.n[0]; ++i) yv(i, j, 0) = inside(i, j) ? at(xv, i, j) : 0.0;
  }
  void apply_dot(const Field<double>& x, Field<double>& y, double* dot) const override {
    apply(x, y);
    *dot = dot_of(x, y);
  }
  void diagonal(Field<double>& d) const override {
    const double h = grid_.spacing[0];
    const auto dv = d.view();
    for (int j = 0; j < grid_.n[1]; ++j)
      for (int i = 0; i < grid_.n[0]; ++i) dv(i, j, 0) = inside(i, j) ? 20 / (6 * h * h) : 1.0;
  }
  void residual(const Field<double>* b, const Field<double>& u, Field<double>& r) const override {
    apply(u, r);
    const auto rv = r.view();
    const auto bv = b->cview();
    for (int j = 1; j < grid_.n[1] - 1; ++j)
      for (int i = 1; i < grid_.n[0] - 1; ++i) rv(i, j, 0) = bv(i, j, 0) - rv(i, j, 0);
  }
  double residual_norm(const Field<double>* b, const Field<double>& u) const override {
    Field<double> r = make_field();
    residual(b, u, r);
    return std::sqrt(dot_of(r, r));
  }
  double rhs_norm(const Field<double>* b, const Field<double>&) const override {
    return std::sqrt(dot_of(*b, *b));
  }

 private:
  double dot_of(const Field<double>& x, const Field<double>& y) const {
    const auto xv = x.cview(), yv = y.cview();
    double s = 0;
    for (int j = 1; j < grid_.n[1] - 1; ++j)
      for (int i = 1; i < grid_.n[0] - 1; ++i) s += xv(i, j, 0) * yv(i, j, 0);
    return s;
  }
  Grid grid_;
};

Field<double> random_interior(const LinearOperator<double>& op, unsigned seed) {
  Field<double> f = op.make_field();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  const auto v = f.view();
  const Box b = op.shape().unknowns;
  for (int j = b.lo[1]; j <= b.hi[1]; ++j)
    for (int i = b.lo[0]; i <= b.hi[0]; ++i) v(i, j, 0) = dist(rng);
  return f;
}

// The dense matrix of the operator, column by column, and u = A^-1 b by Cholesky.
std::vector<double> dense_solve(const NinePointLaplacian& op, const Field<double>& b) {
  const Box box = op.shape().unknowns;
  const int m = box.extent(0), count = m * box.extent(1);
  std::vector<double> a(std::size_t(count) * count), rhs(static_cast<std::size_t>(count), 0.0);
  Field<double> e = op.make_field(), col = op.make_field();
  for (int c = 0; c < count; ++c) {
    e.set_zero();
    e.view()(box.lo[0] + c % m, box.lo[1] + c / m, 0) = 1;
    op.apply(e, col);
    for (int r = 0; r < count; ++r)
      a[std::size_t(c) * count + r] = col.cview()(box.lo[0] + r % m, box.lo[1] + r / m, 0);
    rhs[std::size_t(c)] = b.cview()(box.lo[0] + c % m, box.lo[1] + c / m, 0);
  }
  int info = 0, nrhs = 1;
  dposv_("L", &count, &nrhs, a.data(), &count, rhs.data(), &count, &info);
  EXPECT_EQ(info, 0) << "the nine-point matrix should be positive definite";
  return rhs;
}

TEST(LinearOperator, ConjugateGradientsOnAMatrixFreeNinePointOperator) {
  const NinePointLaplacian op(19);  // 17 x 17 unknowns
  const Field<double> b = random_interior(op, 7);
  const std::vector<double> exact = dense_solve(op, b);
  for (bool jacobi : {false, true}) {
    ConjugateGradient<double> cg(jacobi ? CgPreconditioner::jacobi : CgPreconditioner::none);
    std::unique_ptr<Preconditioner<double>> pc;
    if (jacobi) pc = std::make_unique<JacobiPreconditioner<double>>(op);
    cg.setup(op, pc.get());
    Field<double> u = op.make_field();
    SolveOptions o;
    o.tolerance = 1e-12;
    const SolveReport r = cg.solve(b, u, o);
    EXPECT_TRUE(r.converged) << r.reason;
    EXPECT_LT(r.relative_residual, 1e-12);
    const Box box = op.shape().unknowns;
    const int m = box.extent(0);
    double err = 0, scale = 0;
    for (std::size_t c = 0; c < exact.size(); ++c) {
      const double x = u.cview()(box.lo[0] + int(c) % m, box.lo[1] + int(c) / m, 0);
      err = std::max(err, std::abs(x - exact[c]));
      scale = std::max(scale, std::abs(exact[c]));
    }
    EXPECT_LT(err / scale, 1e-10) << (jacobi ? "pcg" : "cg");
    // Seventeen squared unknowns: CG needs far fewer iterations than unknowns.
    EXPECT_LT(r.iterations, 120);
  }
}

// The solver seam: every registry row takes a LinearOperator. Those that take any
// operator (cg, pcg, bicgstab) solve the matrix-free nine-point system to the dense
// answer; those that read stencil coefficients refuse it at setup, naming why.
TEST(LinearOperator, EveryRegistryRowTakesAnOperatorOrSaysWhyNot) {
  const NinePointLaplacian op(19);
  const Field<double> b = random_interior(op, 11);
  const std::vector<double> exact = dense_solve(op, b);
  const Box box = op.shape().unknowns;
  const int m = box.extent(0);
  for (const SolverInfo& row : solver_registry()) {
    auto solver = make_solver<double>(std::string(row.name));
    const bool any_operator = row.name == "cg" || row.name == "pcg" || row.name == "bicgstab";
    if (!any_operator) {
      try {
        solver->setup(op);
        ADD_FAILURE() << row.name << " accepted a matrix-free operator";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("matrix-free"), std::string::npos) << e.what();
      }
      continue;
    }
    solver->setup(op);
    Field<double> u = op.make_field();
    SolveOptions o;
    o.tolerance = 1e-11;
    const SolveReport r = solver->solve(b, u, o);
    EXPECT_TRUE(r.converged) << row.name << ": " << r.reason;
    double err = 0, scale = 0;
    for (std::size_t c = 0; c < exact.size(); ++c) {
      const double x = u.cview()(box.lo[0] + int(c) % m, box.lo[1] + int(c) / m, 0);
      err = std::max(err, std::abs(x - exact[c]));
      scale = std::max(scale, std::abs(exact[c]));
    }
    EXPECT_LT(err / scale, 1e-9) << row.name;
  }
}

// BiCGStab through the registry on an assembled nonsymmetric-capable problem: the same
// answer as multigrid-preconditioned CG on a variable-coefficient Poisson problem.
TEST(SetupOnce, BiCgStabRowAgreesWithMgcg) {
  const ProblemSpec spec = testing::random_poisson(2, 33, 5);
  Discretization<double> d = assemble<double>(spec, Device::cpu);
  auto bi = make_solver<double>("bicgstab");
  auto mg = make_solver<double>("mgcg");
  EXPECT_EQ(bi->name(), "bicgstab");
  SolveOptions o;
  o.tolerance = 1e-10;
  Field<double> u1 = d.u.copy_to(Device::cpu), u2 = d.u.copy_to(Device::cpu);
  const SolveReport r1 = bi->solve(d.op, u1, o);
  const SolveReport r2 = mg->solve(d.op, u2, o);
  ASSERT_TRUE(r1.converged) << r1.reason;
  ASSERT_TRUE(r2.converged) << r2.reason;
  EXPECT_LT(testing::max_difference(u1, u2), 1e-7 * testing::max_abs(u2));
}

// One hierarchy, many right-hand sides: each solve meets the tolerance on its own b and
// agrees with conjugate gradients on the same b.
TEST(SetupOnce, ManyRightHandSidesOnOneOperator) {
  const ProblemSpec spec = testing::random_poisson(2, 65, 3);
  Discretization<double> d = assemble<double>(spec, Device::cpu);
  auto mg = make_solver<double>("mgcg");
  auto cg = make_solver<double>("cg");
  mg->setup(d.op);
  cg->setup(d.op);
  SolveOptions o;
  o.tolerance = 1e-10;
  for (unsigned seed = 1; seed <= 5; ++seed) {
    Field<double> b(d.op.grid, Device::cpu);
    {
      std::mt19937 rng(seed);
      std::uniform_real_distribution<double> dist(-1, 1);
      const auto v = b.view();
      for (int j = 0; j < d.op.grid.n[1]; ++j)
        for (int i = 0; i < d.op.grid.n[0]; ++i) v(i, j, 0) = dist(rng);
    }
    Field<double> u1 = d.u.copy_to(Device::cpu), u2 = d.u.copy_to(Device::cpu);
    const SolveReport r1 = mg->solve(b, u1, o);
    const SolveReport r2 = cg->solve(b, u2, o);
    ASSERT_TRUE(r1.converged) << r1.reason;
    ASSERT_TRUE(r2.converged) << r2.reason;
    EXPECT_LT(d.op.residual_norm(&b, u1) / d.op.rhs_norm(&b, u1), 1e-10);
    EXPECT_LT(r1.iterations, 15) << "multigrid-preconditioned CG on a Poisson problem";
    EXPECT_LT(testing::max_difference(u1, u2), 1e-8 * testing::max_abs(u2));
  }
  // The operator's own right-hand side still works after solves with others.
  Field<double> u = d.u.copy_to(Device::cpu);
  const SolveReport own = mg->solve(u, o);
  EXPECT_TRUE(own.converged) << own.reason;
  EXPECT_LT(d.op.residual_norm(nullptr, u) / d.op.rhs_norm(nullptr, u), 1e-10);
}

// Residual sums left where they were made (residual_squares_into: on the host here, its
// memory; the flow predictors read the GPU's back together) give residual_norm's value
// to the bit, with and without a mask, per-node and constant rows.
TEST(LinearOperator, ResidualSumsReadTogetherAreResidualNorms) {
  std::vector<Discretization<double>> ops;
  ops.push_back(assemble<double>(testing::model(2, 65, "neumann", "hole", "variable", "manufactured"),
                                 Device::cpu));
  ops.push_back(assemble<double>(testing::random_poisson(2, 33, 7), Device::cpu));
  ops.push_back(assemble<double>(testing::model(3, 17, "robin", "fixed", "variable", "manufactured"),
                                 Device::cpu));
  std::vector<SumOfSquares> slots(ops.size());
  for (std::size_t q = 0; q < ops.size(); ++q) {
    // A u that is not the solution, so that the residual is not zero.
    const auto v = ops[q].u.view();
    const Box b = ops[q].u.interior();
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) v(i, j, k) += 0.01 * std::sin(i + 2.0 * j + 3.0 * k);
    ops[q].op.residual_squares_into(nullptr, ops[q].u, &slots[q]);
  }
  for (std::size_t q = 0; q < ops.size(); ++q) {
    const double norm = ops[q].op.residual_norm(nullptr, ops[q].u);
    EXPECT_GT(norm, 0.0);
    EXPECT_EQ(slots[q].norm(), norm) << q;
  }
}

// Single precision cannot reach 1e-12; the recursive residual of CG can claim it did.
// The report must say not converged, with the true residual.
TEST(TrueResidual, SinglePrecisionKrylovNeverClaimsAnUnreachedTolerance) {
  const ProblemSpec spec = testing::random_poisson(2, 129, 5);
  for (const char* name : {"cg", "mgcg", "pcg"}) {
    Discretization<float> d = assemble<float>(spec, Device::cpu);
    SolveOptions o;
    o.tolerance = 1e-12;
    o.max_iterations = 3000;
    const SolveReport r = make_solver<float>(name)->solve(d.op, d.u, o);
    EXPECT_FALSE(r.converged) << name << ": " << r.reason;
    EXPECT_GT(r.relative_residual, 1e-12) << name;
    EXPECT_EQ(r.converged, r.relative_residual < o.tolerance) << name;
  }
  // And at a tolerance float can reach, it converges and the true residual agrees.
  Discretization<float> d = assemble<float>(spec, Device::cpu);
  SolveOptions o;
  o.tolerance = 1e-4;
  const SolveReport r = make_solver<float>("mgcg")->solve(d.op, d.u, o);
  EXPECT_TRUE(r.converged) << r.reason;
  EXPECT_LT(r.relative_residual, 1e-4);
}

}  // namespace
}  // namespace gridsolve
