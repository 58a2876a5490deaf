// operator_part: the whole operator's description kept, its boxes and fields cut to a rank.
#include "gridsolve/problem/stencil_operator_part.hpp"

#include <utility>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/field_part.hpp"

namespace gridsolve {

template <class T>
StencilOperator<T> operator_part(const StencilOperator<T>& whole,
                                 std::shared_ptr<const Decomposition> parts, int rank) {
  require(!whole.parts, "this operator is already one rank's part");
  const Box nodes = whole.grid.box(whole.active.centring);
  require(parts->global().lo == nodes.lo && parts->global().hi == nodes.hi &&
              parts->dims() == whole.grid.dims,
          "an operator splits over a decomposition of its grid's nodes (" + parts->describe() +
              " is of another box)");
  StencilOperator<T> o = whole.copy_to(Device::cpu);  // the cut is made on the host
  o.global_active = whole.active;
  o.active = whole.active.intersect(parts->box(rank));
  auto cut = [&](Field<T>& f) {
    if (!f.empty()) f = field_part(f, parts, rank);
  };
  cut(o.ap), cut(o.aw), cut(o.ae), cut(o.as), cut(o.an), cut(o.ab), cut(o.at), cut(o.rhs);
  if (!o.mask.empty()) o.mask = field_part(o.mask, parts, rank);
  o.parts = std::move(parts);
  o.rank = rank;
  if (whole.device != Device::cpu) return o.copy_to(whole.device);
  return o;
}

template StencilOperator<float> operator_part(const StencilOperator<float>&,
                                              std::shared_ptr<const Decomposition>, int);
template StencilOperator<double> operator_part(const StencilOperator<double>&,
                                               std::shared_ptr<const Decomposition>, int);

}  // namespace gridsolve
