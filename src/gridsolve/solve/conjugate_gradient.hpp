// Conjugate gradients, plain or preconditioned (Jacobi or one multigrid cycle).
#pragma once
#include "gridsolve/solve/multigrid/multigrid.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

// multigrid_float: a single-precision cycle inside the double iteration (double only).
enum class CgPreconditioner { none, jacobi, multigrid, multigrid_float };

template <class T>
class ConjugateGradient final : public Solver<T> {
 public:
  ConjugateGradient(CgPreconditioner pc, MultigridOptions mg = {}) : pc_(pc), mg_(std::move(mg)) {}
  std::string name() const override {
    switch (pc_) {
      case CgPreconditioner::none:
        return "cg";
      case CgPreconditioner::jacobi:
        return "pcg";
      case CgPreconditioner::multigrid:
        return "mgcg";
      default:
        return "mgcg-mixed";
    }
  }
  SolveReport solve(const StencilOperator<T>& op, Field<T>& u,
                    const SolveOptions& options) override;

 private:
  CgPreconditioner pc_;
  MultigridOptions mg_;
};

}  // namespace gridsolve
