// StencilOperator: owns an assembled 5/7-point operator's arrays on one device; hands out
// views, and is the fast LinearOperator.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "gridsolve/core/grid.hpp"
#include "gridsolve/core/sum_of_squares.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"
#include "gridsolve/problem/boundary.hpp"
#include "gridsolve/problem/linear_operator.hpp"
#include "gridsolve/problem/stencil_view.hpp"

namespace gridsolve {

template <class T>
class StencilOperator final : public LinearOperator<T> {
 public:
  Grid grid;
  Device device = Device::cpu;
  Box active;
  bool uniform = true;
  T cp = 0, cw = 0, ce = 0, cs = 0, cn = 0, cb = 0, ct = 0, b_const = 0;
  Field<T> ap, aw, ae, as, an, ab, at;  // empty when uniform
  Field<T> rhs;                         // empty when b is the constant b_const
  Field<std::uint8_t> mask;             // empty when every active node is free
  std::int64_t unknowns = 0;            // free nodes
  // Jacobi spectral radius estimate (for SOR's omega), from the assembly.
  double jacobi_radius = 0;
  // What the problem looked like before assembly, for solvers that need structure
  // (transform and cyclic-reduction solvers want constant k on a full rectangle).
  std::array<BoundaryKind, 6> sides{};  // per face, x_low .. z_high
  double k_constant = 0;                // k when constant, else 0
  bool has_cutouts = false;             // some nodes are outside the domain
  bool has_fixed_regions = false;       // some interior nodes are fixed
  // All-Neumann problems: u is defined up to a constant (solvers return the solution of
  // zero mean over the unknowns); rhs_mismatch is the relative net source projected out.
  bool singular = false;
  double rhs_mismatch = 0;
  // Bit a set: axis a is periodic (the active box spans one period there; see
  // StencilView::periodic).
  std::uint8_t periodic = 0;
  // On several ranks (operator_part): the decomposition whose rank `rank` this operator
  // is the part of, and the whole problem's active box; `active`, the coefficient fields
  // and every vector are then that rank's parts, `unknowns` still counts them all, and
  // the norms and dot products are all-reduced. Null: one rank holds everything.
  std::shared_ptr<const Decomposition> parts;
  int rank = 0;
  Box global_active;

  // Fills what the operator reads beyond its unknowns on periodic axes (the ghost below,
  // the image node above) from the unknowns they copy, and on several ranks the ghosts
  // facing other ranks; nothing on one rank without periodic axes. Every sweep that reads
  // neighbours calls it first.
  void exchange_ghosts(Field<T>& u) const;
  // The same for a field the caller holds const: ghosts and images are derived from the
  // unknowns, so refreshing them leaves the field's value unchanged.
  void refresh_images(const Field<T>& u) const;
  GhostSides ghost_sides() const;

  StencilView<T> view() const;
  // The same operator with right-hand side b (per node) in place of its own (b null: its
  // own): how one operator serves many right-hand sides.
  StencilView<T> view(const Field<T>* b) const;
  StencilOperator copy_to(Device d) const;
  // Everything but the fields (coefficients, source, mask): the operator's description,
  // which copies, parts and gathered wholes start from.
  StencilOperator description() const;
  std::string describe() const;

  // LinearOperator. The norms are over the free nodes (b null: the operator's own
  // right-hand side); residual is b - A u at free nodes, 0 elsewhere; fix_constant shifts
  // the solution of a singular operator to zero mean over the unknowns (every solver
  // calls it last).
  OperatorShape shape() const override {
    return OperatorShape{grid, active, 1, device, parts, rank};
  }
  const StencilOperator<T>* stencil() const override { return this; }
  void apply(const Field<T>& x, Field<T>& y) const override;
  void apply_dot(const Field<T>& x, Field<T>& y, double* dot) const override;
  void diagonal(Field<T>& d) const override;
  void residual(const Field<T>* b, const Field<T>& u, Field<T>& r) const override;
  double residual_norm(const Field<T>* b, const Field<T>& u) const override;
  // This rank's part of residual_norm's sum of squares, left in *result (memory of the
  // operator's device) without waiting: several such sums are read back with one wait
  // (read_results), then summed over the ranks (when `parts`) and taken the root of.
  void residual_squares_into(const Field<T>* b, const Field<T>& u, SumOfSquares* result) const;
  double rhs_norm(const Field<T>* b, const Field<T>& u) const override;
  std::array<double, 2> residual_and_rhs_norms(const Field<T>* b,
                                               const Field<T>& u) const override;
  void fix_constant(Field<T>& u) const override;
};

}  // namespace gridsolve
