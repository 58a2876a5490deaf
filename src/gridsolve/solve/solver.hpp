// Solver<T>: the interface every linear solver implements (set up once, solve many);
// make_solver picks by name.
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/linear_operator.hpp"
#include "gridsolve/problem/stencil_operator.hpp"
#include "gridsolve/solve/multigrid/multigrid_options.hpp"
#include "gridsolve/solve/solve_options.hpp"

namespace gridsolve {

// The lifecycle: setup(op) builds what every solve of that operator reuses (multigrid
// hierarchies and coarse operators, Krylov workspaces, transform plans, colour-split
// copies); update(op) takes new coefficients on the same structure; solve(b, u) does
// only the iteration. The operator must outlive the solves. Every solver takes any
// LinearOperator; those that read stencil coefficients (relaxations, multigrid, direct
// solvers, multigrid preconditioners) ask it for its stencil and refuse a matrix-free one.
template <class T>
class Solver {
 public:
  virtual ~Solver() = default;
  virtual std::string name() const = 0;
  // Whether the solver runs an operator split over several ranks (its sweeps exchange
  // ghosts through the operator and its reductions end in all-reduces). The others refuse
  // such an operator with a message, rather than solving each rank's part alone.
  virtual bool runs_on_ranks() const { return false; }
  virtual void setup(const LinearOperator<T>& op) = 0;
  // Same grid, mask and fixed nodes, new coefficients or source: refreshes what setup
  // built. Solvers whose setup holds nothing that depends on the values just re-point.
  virtual void update(const LinearOperator<T>& op) { setup(op); }

  // Solves A u = b with the operator of the last setup. u holds the start and the known
  // (fixed) values, and is improved in place; b is a per-node right-hand side of the
  // operator's shape.
  SolveReport solve(const Field<T>& b, Field<T>& u, const SolveOptions& options) {
    require_ranks_supported(op_);
    return run(&b, u, options);
  }
  // The same with the operator's own right-hand side.
  SolveReport solve(Field<T>& u, const SolveOptions& options) {
    require_ranks_supported(op_);
    return run(nullptr, u, options);
  }
  // One operator, one solve.
  SolveReport solve(const LinearOperator<T>& op, Field<T>& u, const SolveOptions& options) {
    require_ranks_supported(&op);  // before setup, which would build on the part alone
    const auto t0 = std::chrono::steady_clock::now();
    setup(op);
    const double setup_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    SolveReport report = run(nullptr, u, options);
    report.setup_seconds = setup_seconds;
    return report;
  }

  // The iteration behind every solve above; b null means the operator's own right-hand
  // side. (Public because CUDA's device lambdas may not sit in a protected function.)
  virtual SolveReport run(const Field<T>* b, Field<T>& u, const SolveOptions& options) = 0;

 protected:
  void require_ranks_supported(const LinearOperator<T>* o) const {
    require(!o || !o->shape().parts || runs_on_ranks(),
            name() +
                " does not run on several ranks yet; jacobi, sor, rb-gs, mg, mgcg, cg, pcg, "
                "bicgstab and hypre-pfmg do");
  }
  // The operator of the last setup; solving before setup is a programming error.
  const LinearOperator<T>& op() const {
    require(op_ != nullptr, name() + ": solve before setup");
    return *op_;
  }
  // The operator's stencil, for solvers that read its coefficients.
  const StencilOperator<T>& stencil() const {
    const StencilOperator<T>* s = op().stencil();
    require(s != nullptr, name() +
                              " reads the coefficients of an assembled stencil; this operator is "
                              "matrix-free (cg, pcg and bicgstab take any operator)");
    return *s;
  }
  const LinearOperator<T>* op_ = nullptr;
};

// Names and aliases are the solver registry's (solver_registry.hpp). Unknown names
// throw Error listing the valid ones.
template <class T>
std::unique_ptr<Solver<T>> make_solver(const std::string& name);
template <class T>
std::unique_ptr<Solver<T>> make_solver(const std::string& name, const MultigridOptions& mg);
std::vector<std::string> solver_names();
std::string canonical_solver_name(const std::string& name);

// The optimal SOR factor for a Jacobi spectral radius rho: 2 / (1 + sqrt(1 - rho^2)).
double optimal_omega(double rho);

}  // namespace gridsolve
