// Lexicographic Gauss-Seidel / SOR, in place, x fastest: the sequential CPU reference.
#pragma once
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

template <class T>
class GaussSeidel final : public Solver<T> {
 public:
  std::string name() const override { return "gauss-seidel"; }
  void setup(const StencilOperator<T>& op) override { this->op_ = &op; }

  SolveReport run(const Field<T>* b, Field<T>& u, const SolveOptions& options) override;
};

}  // namespace gridsolve
