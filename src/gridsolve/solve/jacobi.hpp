// Jacobi iteration, u_new = (1-w) u + w (b + sum a_nb u_nb) / a_P, two buffers.
#pragma once
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

template <class T>
class Jacobi final : public Solver<T> {
 public:
  std::string name() const override { return "jacobi"; }
  void setup(const LinearOperator<T>& op) override {
    this->op_ = &op;
    this->stencil();  // refuses a matrix-free operator now, not at the first solve
  }
  bool runs_on_ranks() const override { return true; }

  SolveReport run(const Field<T>* b, Field<T>& u, const SolveOptions& options) override;
};

// One generic sweep in -> out (exposed for benchmarks and kernel comparisons); b null:
// the operator's own right-hand side.
template <class T>
void jacobi_sweep_generic(const StencilOperator<T>& op, const Field<T>& in, Field<T>& out, T weight,
                          const Field<T>* b = nullptr);

}  // namespace gridsolve
