// PeriodicPressureOperator: the flow's cell-centred pressure operator with its stencil
// wrapped across periodic sides, as a LinearOperator for the Krylov solvers (the
// registry's stencil solvers read ghosts as known values, so they cannot wrap).
#pragma once
#include <array>

#include "gridsolve/problem/linear_operator.hpp"
#include "gridsolve/problem/stencil_operator.hpp"

namespace gridsolve::flow {

// Row P at a free cell:  a_P p_P - sum_nb a_nb p_nb = b_P, where a neighbour across a
// periodic side is the cell at the other end of the axis. The coefficients, mask and
// right-hand side are those of `op` (assembled by the flow solver with the periodic
// faces' couplings in place); the operator is singular (constants), so solutions are
// returned with zero mean over the free cells.
template <class T>
class PeriodicPressureOperator final : public LinearOperator<T> {
 public:
  PeriodicPressureOperator(const StencilOperator<T>& op, std::array<bool, 3> periodic);

  OperatorShape shape() const override;
  void apply(const Field<T>& x, Field<T>& y) const override;
  void apply_dot(const Field<T>& x, Field<T>& y, double* dot) const override;
  void diagonal(Field<T>& d) const override;
  void residual(const Field<T>* b, const Field<T>& u, Field<T>& r) const override;
  double residual_norm(const Field<T>* b, const Field<T>& u) const override;
  double rhs_norm(const Field<T>* b, const Field<T>& u) const override;
  void fix_constant(Field<T>& u) const override;

 private:
  const StencilOperator<T>* op_;
  std::array<bool, 3> periodic_;
};

}  // namespace gridsolve::flow
