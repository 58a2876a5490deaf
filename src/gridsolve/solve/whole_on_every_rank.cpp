// WholeOnEveryRank: the gathers before a solve, the part taken back after it.
#include "gridsolve/solve/whole_on_every_rank.hpp"

#include <utility>

#include "gridsolve/exec/field_part.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/problem/stencil_operator_part.hpp"

namespace gridsolve {

template <class T>
WholeOnEveryRank<T>::WholeOnEveryRank(std::unique_ptr<Solver<T>> inner, std::int64_t max_nodes)
    : inner_(std::move(inner)), max_nodes_(max_nodes) {}

template <class T>
void WholeOnEveryRank<T>::take(const LinearOperator<T>& op, bool fresh) {
  this->op_ = &op;
  const StencilOperator<T>* part = op.stencil();
  const bool small =
      part && part->parts && part->parts->ranks() > 1 && part->grid.node_count() <= max_nodes_;
  if (!small) {
    whole_ = false;
    if (fresh)
      inner_->setup(op);
    else
      inner_->update(op);
    return;
  }
  if (fresh || !whole_) {
    whole_op_ = gather_operator(*part, true, part->device);
    whole_u_ = whole_op_.make_field();
    whole_b_ = Field<T>();
    whole_ = true;
    inner_->setup(whole_op_);
    return;
  }
  gather_values();
  inner_->update(whole_op_);
}

template <class T>
void WholeOnEveryRank<T>::gather_values() {
  const StencilOperator<T>& part = *this->op().stencil();
  const Field<T>* from[] = {&part.ap, &part.aw, &part.ae, &part.as,
                            &part.an, &part.ab, &part.at, &part.rhs};
  Field<T>* to[] = {&whole_op_.ap, &whole_op_.aw, &whole_op_.ae, &whole_op_.as,
                    &whole_op_.an, &whole_op_.ab, &whole_op_.at, &whole_op_.rhs};
  for (std::size_t f = 0; f < std::size(from); ++f)
    if (!from[f]->empty()) gather_parts_everywhere(*from[f], *to[f]);
  whole_op_.jacobi_radius = part.jacobi_radius;
  whole_op_.rhs_mismatch = part.rhs_mismatch;
}

template <class T>
SolveReport WholeOnEveryRank<T>::run(const Field<T>* b, Field<T>& u, const SolveOptions& options) {
  if (!whole_) return inner_->run(b, u, options);
  const StencilOperator<T>& part = *this->op().stencil();
  // The coefficients too: a caller may change them in place between updates (a solver
  // that reads the part's operator would see that at once; the whole copy must as well).
  gather_values();
  if (b) {
    if (whole_b_.empty()) whole_b_ = whole_op_.make_field();
    gather_parts_everywhere(*b, whole_b_);
  }
  gather_parts_everywhere(u, whole_u_);
  const SolveReport r = inner_->run(b ? &whole_b_ : nullptr, whole_u_, options);
  // Every rank solved the same problem alike: its part of the solution comes from its
  // copy; the ghosts facing other ranks (and periodic images) are then refreshed as a split
  // solve leaves them, and those beyond the sides stay the caller's.
  const FieldView<const T> from = whole_u_.cview();
  const FieldView<T> to = u.view();
  const int ncomp = u.ncomp();
  for_each(u.device(), u.interior(), [=] GRIDSOLVE_HD(int i, int j, int k) {
    for (int c = 0; c < ncomp; ++c) to(i, j, k, c) = from(i, j, k, c);
  });
  part.exchange_ghosts(u);
  return r;
}

template class WholeOnEveryRank<float>;
template class WholeOnEveryRank<double>;

}  // namespace gridsolve
