// Lexicographic Gauss-Seidel / SOR, in place, x fastest: the sequential CPU reference.
#pragma once
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

template <class T>
class GaussSeidel final : public Solver<T> {
 public:
  std::string name() const override { return "gauss-seidel"; }
  void setup(const LinearOperator<T>& op) override {
    this->op_ = &op;
    this->stencil();  // refuses a matrix-free operator now, not at the first solve
  }

  SolveReport run(const Field<T>* b, Field<T>& u, const SolveOptions& options) override;
};

}  // namespace gridsolve
