#include "gridsolve/solve/multigrid/mixed_precision.hpp"

#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve {

namespace {

// Every node, ghosts included (global indices: a rank's part too). Float and double
// fields pad rows differently, so the copy goes node by node, not through the raw storage.
template <class T, class S>
void convert_into(const Field<S>& f, Field<T>& out) {
  const FieldView<const S> in = f.cview();
  const FieldView<T> o = out.view();
  Box all = f.interior().grown(f.ghost());
  if (f.dims() < 3) all.lo[2] = all.hi[2] = f.interior().lo[2];
  for_each(f.device(), all, [=] GRIDSOLVE_HD(int i, int j, int k) { o(i, j, k) = T(in(i, j, k)); });
}

// A zero field shaped as f (its box, ghosts and decomposition) in another precision.
template <class T, class S>
Field<T> field_like(const Field<S>& f) {
  if (f.decomposition())
    return Field<T>(f.shared_decomposition(), f.rank(), f.ncomp(), f.ghost(), f.device());
  return Field<T>(f.interior(), f.dims(), f.ncomp(), f.ghost(), f.device());
}

template <class T, class S>
Field<T> convert_field(const Field<S>& f) {
  if (f.empty()) return Field<T>();
  Field<T> out = field_like<T>(f);
  convert_into(f, out);
  return out;
}

// A work field of the operator's unknowns' shape (a rank's part on several ranks).
template <class T, class S>
Field<T> work_field(const StencilOperator<S>& op) {
  if (op.parts) return Field<T>(op.parts, op.rank, 1, 1, op.device);
  return Field<T>(op.grid, op.device);
}

}  // namespace

template <class T, class S>
StencilOperator<T> convert_operator(const StencilOperator<S>& op) {
  StencilOperator<T> o;
  o.grid = op.grid;
  o.device = op.device;
  o.active = op.active;
  o.uniform = op.uniform;
  o.cp = T(op.cp), o.cw = T(op.cw), o.ce = T(op.ce), o.cs = T(op.cs), o.cn = T(op.cn);
  o.cb = T(op.cb), o.ct = T(op.ct), o.b_const = T(op.b_const);
  o.ap = convert_field<T>(op.ap), o.aw = convert_field<T>(op.aw), o.ae = convert_field<T>(op.ae);
  o.as = convert_field<T>(op.as), o.an = convert_field<T>(op.an);
  o.ab = convert_field<T>(op.ab), o.at = convert_field<T>(op.at);
  o.rhs = convert_field<T>(op.rhs);
  if (!op.mask.empty()) o.mask = op.mask.copy_to(op.device);
  o.unknowns = op.unknowns;
  o.jacobi_radius = op.jacobi_radius;
  o.sides = op.sides;
  o.k_constant = op.k_constant;
  o.has_cutouts = op.has_cutouts;
  o.has_fixed_regions = op.has_fixed_regions;
  o.singular = op.singular;
  o.periodic = op.periodic;
  o.rhs_mismatch = op.rhs_mismatch;
  o.parts = op.parts;
  o.rank = op.rank;
  o.global_active = op.global_active;
  return o;
}

MixedPrecisionMultigrid::MixedPrecisionMultigrid(const StencilOperator<double>& op,
                                                 const MultigridOptions& o)
    : op_(convert_operator<float>(op)),
      hierarchy_(op_, o),
      r_(work_field<float>(op)),
      z_(work_field<float>(op)) {}

bool MixedPrecisionMultigrid::update(const StencilOperator<double>& op) {
  StencilOperator<float> converted = convert_operator<float>(op);
  if (!hierarchy_.same_structure(converted)) return false;
  op_ = std::move(converted);  // the hierarchy keeps pointing at op_
  hierarchy_.update(op_);
  return true;
}

void MixedPrecisionMultigrid::apply(const Field<double>& r, Field<double>& z) {
  convert_into(r, r_);
  hierarchy_.precondition(r_, z_);
  convert_into(z_, z);
}

template StencilOperator<float> convert_operator<float, double>(const StencilOperator<double>&);
template StencilOperator<double> convert_operator<double, float>(const StencilOperator<float>&);

}  // namespace gridsolve
