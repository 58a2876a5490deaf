// Solver<T>: the interface every linear solver implements; make_solver picks by name.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/stencil_operator.hpp"
#include "gridsolve/solve/multigrid/multigrid_options.hpp"
#include "gridsolve/solve/solve_options.hpp"

namespace gridsolve {

template <class T>
class Solver {
 public:
  virtual ~Solver() = default;
  virtual std::string name() const = 0;
  // Improves u in place (fixed nodes are left alone) and reports how it went.
  virtual SolveReport solve(const StencilOperator<T>& op, Field<T>& u,
                            const SolveOptions& options) = 0;
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
