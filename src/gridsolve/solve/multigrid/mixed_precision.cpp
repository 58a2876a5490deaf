#include "gridsolve/solve/multigrid/mixed_precision.hpp"

#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve {

namespace {

// Every node, ghosts included. Float and double fields pad rows differently, so the
// copy goes node by node, not through the raw storage.
template <class T, class S>
void convert_into(const Field<S>& f, Field<T>& out) {
  const FieldView<const S> in = f.cview();
  const FieldView<T> o = out.view();
  const auto n = f.layout().n;
  const bool three = f.dims() == 3;
  const Box all{{-1, -1, three ? -1 : 0}, {n[0], n[1], three ? n[2] : 0}};
  for_each(f.device(), all, [=] GRIDSOLVE_HD(int i, int j, int k) { o(i, j, k) = T(in(i, j, k)); });
}

template <class T, class S>
Field<T> convert_field(const Field<S>& f, const Grid& g) {
  if (f.empty()) return Field<T>();
  Field<T> out(g, f.device());
  convert_into(f, out);
  return out;
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
  const Grid& g = op.grid;
  o.ap = convert_field<T>(op.ap, g), o.aw = convert_field<T>(op.aw, g),
  o.ae = convert_field<T>(op.ae, g);
  o.as = convert_field<T>(op.as, g), o.an = convert_field<T>(op.an, g);
  o.ab = convert_field<T>(op.ab, g), o.at = convert_field<T>(op.at, g);
  o.rhs = convert_field<T>(op.rhs, g);
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
  return o;
}

MixedPrecisionMultigrid::MixedPrecisionMultigrid(const StencilOperator<double>& op,
                                                 const MultigridOptions& o)
    : op_(convert_operator<float>(op)),
      hierarchy_(op_, o),
      r_(op.grid, op.device),
      z_(op.grid, op.device) {}

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
