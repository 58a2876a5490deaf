// BiCGStab (van der Vorst) on any LinearOperator: nonsymmetric systems such as the
// momentum equations of incompressible flow; optionally Jacobi (right) preconditioned.
// The registry's "bicgstab" is the preconditioned one.
#pragma once
#include <memory>

#include "gridsolve/problem/linear_operator.hpp"
#include "gridsolve/solve/solve_options.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

template <class T>
class BiCgStab final : public Solver<T> {
 public:
  explicit BiCgStab(bool jacobi = true);
  ~BiCgStab() override;
  std::string name() const override { return "bicgstab"; }
  bool runs_on_ranks() const override { return true; }
  // Keeps `op` (which must outlive the solves) and builds the workspace once; a later
  // setup with an operator of the same shape keeps the workspace.
  void setup(const LinearOperator<T>& op) override;
  // Improves u toward A u = b (b null: the operator's own right-hand side, with the
  // known values u holds). Stops on the true relative residual ||b - A u|| / ||b||.
  SolveReport run(const Field<T>* b, Field<T>& u, const SolveOptions& options) override;

 private:
  struct Workspace;
  bool jacobi_;
  std::unique_ptr<Workspace> work_;
};

}  // namespace gridsolve
