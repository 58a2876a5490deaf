// LinearOperator<T>: what Krylov methods and preconditioners see of a system's matrix.
#pragma once
#include <array>
#include <memory>

#include "gridsolve/core/box.hpp"
#include "gridsolve/core/grid.hpp"
#include "gridsolve/exec/field.hpp"

namespace gridsolve {

template <class T>
class StencilOperator;

// Where an operator's vectors live: fields of this grid, centring and component count on
// this device, whose unknowns lie inside `unknowns` (which may also hold known values).
// On several ranks the vectors are rank `rank`'s parts of `parts` and `unknowns` is the
// part inside that rank's box: loops over it stay local, and reductions over it must end
// in an all-reduce.
struct OperatorShape {
  Grid grid;
  Box unknowns;
  int ncomp = 1;
  Device device = Device::cpu;
  std::shared_ptr<const Decomposition> parts;  // null: one rank holds everything
  int rank = 0;
};

// The contract: vectors are fields of the operator's shape, and every vector a Krylov
// method builds (residuals, directions, preconditioned residuals) is zero wherever there is
// no unknown. So dot products may run over the whole box, and a stencil operator that keeps
// known (Dirichlet) values inside the field never sees them through apply.
template <class T>
class LinearOperator {
 public:
  virtual ~LinearOperator() = default;
  virtual OperatorShape shape() const = 0;
  // y = A x at the unknowns, 0 elsewhere; x vanishes off the unknowns.
  virtual void apply(const Field<T>& x, Field<T>& y) const = 0;
  // apply, and x . y over the unknowns from the same pass, accumulated in double and
  // written to *dot: memory of the operator's device, without waiting for the result
  // (a Krylov iteration keeps one pass over A and one host round trip this way).
  virtual void apply_dot(const Field<T>& x, Field<T>& y, double* dot) const = 0;
  // d = diag(A) at the unknowns, 1 elsewhere.
  virtual void diagonal(Field<T>& d) const = 0;
  // r = b - A u at the unknowns, 0 elsewhere. b null: the operator's own right-hand side
  // (a stencil operator's source, and the known values u holds); a matrix-free operator
  // without one requires b and a u that vanishes off the unknowns.
  virtual void residual(const Field<T>* b, const Field<T>& u, Field<T>& r) const = 0;
  // ||b - A u||_2 over the unknowns, in double (b null as in residual).
  virtual double residual_norm(const Field<T>* b, const Field<T>& u) const = 0;
  // The norm of the unknowns' right-hand side (b, and for a stencil operator the known
  // values' contributions): what makes residuals relative (b null as in residual).
  virtual double rhs_norm(const Field<T>* b, const Field<T>& u) const = 0;
  // Both norms, {residual, right-hand side}: one pass (one wait on the host) where the
  // operator can, so an iteration's first check also measures its scale.
  virtual std::array<double, 2> residual_and_rhs_norms(const Field<T>* b,
                                                       const Field<T>& u) const {
    return {residual_norm(b, u), rhs_norm(b, u)};
  }
  // Singular operators (all-Neumann): shifts u to the representative the operator defines
  // (zero mean over the unknowns). Others leave u alone.
  virtual void fix_constant(Field<T>& u) const { (void)u; }
  // The operator as an assembled stencil, for solvers whose sweeps, hierarchies or
  // transforms read its coefficients; null for a matrix-free operator. Solvers find their
  // fast paths by asking this, never by the type they were handed.
  virtual const StencilOperator<T>* stencil() const { return nullptr; }

  // A zero field of the operator's shape.
  Field<T> make_field() const {
    const OperatorShape s = shape();
    if (s.parts) return Field<T>(s.parts, s.rank, s.ncomp, 1, s.device);
    return Field<T>(s.grid, s.unknowns.centring, s.ncomp, 1, s.device);
  }
};

}  // namespace gridsolve
