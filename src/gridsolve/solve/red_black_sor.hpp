// Red-black SOR: all nodes with (i+j+k) even, then all odd; parallel on both devices.
#pragma once
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

template <class T>
class RedBlackSor final : public Solver<T> {
 public:
  // With gauss_seidel set, omega is 1 unless given (red-black Gauss-Seidel).
  explicit RedBlackSor(bool gauss_seidel = false) : gauss_seidel_(gauss_seidel) {}
  std::string name() const override { return gauss_seidel_ ? "rb-gs" : "sor"; }
  void setup(const LinearOperator<T>& op) override {
    this->op_ = &op;
    this->stencil();  // refuses a matrix-free operator now, not at the first solve
  }
  // Each colour's sweep reads the other colour through ghosts refreshed just before it,
  // so a rank's part sweeps as the whole would (the generic kernel).
  bool runs_on_ranks() const override { return true; }

  SolveReport run(const Field<T>* b, Field<T>& u, const SolveOptions& options) override;

 private:
  bool gauss_seidel_;
};

// One generic red-black iteration in the natural layout (benchmarks, comparisons, and
// the flow momentum predictor, which runs it on its momentum rows with its own stopping);
// b null: the operator's own right-hand side.
template <class T>
void red_black_iteration_generic(const StencilOperator<T>& op, Field<T>& u, T omega,
                                 const Field<T>* b = nullptr);

// `count` such iterations. Where both colours fit one pass (red_black_sweep.hpp: a 2D
// operator on one rank, no periodic axis, on the GPU) they go in pairs through `second`,
// a field like u made here when empty, at half the traffic; the same values to the bit.
template <class T>
void red_black_iterations(const StencilOperator<T>& op, Field<T>& u, T omega, int count,
                          Field<T>& second, const Field<T>* b = nullptr);

}  // namespace gridsolve
