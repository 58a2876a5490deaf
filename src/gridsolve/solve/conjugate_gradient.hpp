// Conjugate gradients, plain or preconditioned (Jacobi or one multigrid cycle).
#pragma once
#include "gridsolve/solve/multigrid/multigrid.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

enum class CgPreconditioner { none, jacobi, multigrid };

template <class T>
class ConjugateGradient final : public Solver<T> {
public:
  ConjugateGradient(CgPreconditioner pc, MultigridOptions mg = {}) : pc_(pc), mg_(std::move(mg)) {}
  std::string name() const override {
    return pc_ == CgPreconditioner::none ? "cg" : pc_ == CgPreconditioner::jacobi ? "pcg" : "mgcg";
  }
  SolveReport solve(const StencilOperator<T>& op, Field<T>& u, const SolveOptions& options) override;

private:
  CgPreconditioner pc_;
  MultigridOptions mg_;
};

}  // namespace gridsolve
