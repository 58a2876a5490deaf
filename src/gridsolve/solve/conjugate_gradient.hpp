// Conjugate gradients on any LinearOperator, plain or preconditioned (Jacobi, one
// multigrid cycle, or a preconditioner the caller brings).
#pragma once
#include <memory>

#include "gridsolve/exec/memory.hpp"
#include "gridsolve/solve/multigrid/multigrid.hpp"
#include "gridsolve/solve/preconditioner.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

// multigrid_float: a single-precision cycle inside the double iteration (double only).
enum class CgPreconditioner { none, jacobi, multigrid, multigrid_float };

template <class T>
class ConjugateGradient final : public Solver<T> {
 public:
  ConjugateGradient(CgPreconditioner pc, MultigridOptions mg = {});
  ~ConjugateGradient() override;
  std::string name() const override;
  // Every kind: plain, Jacobi-, multigrid- and single-precision-multigrid-preconditioned.
  bool runs_on_ranks() const override { return true; }
  // Builds the preconditioner (for mgcg the multigrid hierarchy, which needs a stencil
  // operator; cg and pcg take any) and the iteration's workspace.
  void setup(const LinearOperator<T>& op) override;
  // Same structure: a multigrid preconditioner's hierarchy is refreshed in place.
  void update(const LinearOperator<T>& op) override;
  // Any symmetric positive (semi)definite operator, matrix-free ones included, with a
  // preconditioner the caller owns and keeps alive (null: none).
  void setup(const LinearOperator<T>& op, Preconditioner<T>* preconditioner);

  SolveReport run(const Field<T>* b, Field<T>& u, const SolveOptions& options) override;

 private:
  struct Workspace;
  CgPreconditioner kind_;
  MultigridOptions mg_;
  const LinearOperator<T>* operator_ = nullptr;
  std::unique_ptr<Preconditioner<T>> owned_;
  Preconditioner<T>* preconditioner_ = nullptr;
  std::unique_ptr<Workspace> work_;
};

}  // namespace gridsolve
