// operator_part: the whole operator's description kept, its boxes and fields cut to a rank.
#include "gridsolve/problem/stencil_operator_part.hpp"

#include <type_traits>
#include <utility>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/field_part.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/problem/problem_spec.hpp"

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
  // A part reads the marks of the nodes beyond its faces in its ghosts; beyond a periodic
  // side those are the images' marks, filled in the whole mask before the cut.
  if (!o.mask.empty() && o.periodic) exchange_ghosts(o.mask, o.ghost_sides());
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

namespace {

template <class U>
struct CopyValues {
  FieldView<const U> from;
  FieldView<U> to;
  GRIDSOLVE_HD void operator()(int i, int j, int k) const { to(i, j, k) = from(i, j, k); }
};

}  // namespace

template <class T>
StencilOperator<T> with_ghost_layers(const StencilOperator<T>& part, int layers) {
  require(bool(part.parts), "with_ghost_layers takes one rank's part of an operator");
  StencilOperator<T> w = part.description();
  const GhostSides sides = part.ghost_sides();
  auto widen = [&](const auto& from, auto& to) {
    using F = std::decay_t<decltype(to)>;
    using U = std::remove_cv_t<std::remove_reference_t<decltype(*from.storage())>>;
    if (from.empty()) return;
    to = F(part.parts, part.rank, 1, layers, part.device);
    for_each(part.device, from.interior(), CopyValues<U>{from.cview(), to.view()});
    exchange_ghosts(to, sides);
  };
  widen(part.ap, w.ap), widen(part.aw, w.aw), widen(part.ae, w.ae), widen(part.as, w.as);
  widen(part.an, w.an), widen(part.ab, w.ab), widen(part.at, w.at), widen(part.mask, w.mask);
  return w;
}

template <class T>
StencilOperator<T> gather_operator(const StencilOperator<T>& part, bool with_rhs, Device on) {
  require(bool(part.parts), "gather_operator takes one rank's part of an operator");
  require(on == Device::cpu || on == part.device,
          "gather_operator gathers into host memory or onto the part's own device");
  StencilOperator<T> whole = part.description();
  whole.device = on;
  whole.active = part.global_active;
  whole.parts = nullptr;  // one rank holds everything
  whole.rank = 0;
  whole.global_active = Box{};
  auto gather = [&](const auto& from, auto& to) {
    using F = std::decay_t<decltype(to)>;
    if (from.empty()) return;
    to = F(part.grid, part.active.centring, from.ncomp(), from.ghost(), on);
    if (from.device() == on)
      gather_parts_everywhere(from, to);
    else
      gather_parts_everywhere(from.copy_to(on), to);
  };
  gather(part.ap, whole.ap), gather(part.aw, whole.aw), gather(part.ae, whole.ae);
  gather(part.as, whole.as), gather(part.an, whole.an), gather(part.ab, whole.ab);
  gather(part.at, whole.at), gather(part.mask, whole.mask);
  if (with_rhs) gather(part.rhs, whole.rhs);
  // Whole readers fold periodic indices onto the unknowns, so no ghost is filled.
  return whole;
}

namespace {

// Calls f(i, j, k) for every unknown of a whole operator (host copies as needed).
template <class T, class F>
void for_each_unknown(const StencilOperator<T>& whole, const Box& box, F&& f) {
  const Field<std::uint8_t> host = whole.mask.empty() || whole.mask.device() == Device::cpu
                                       ? Field<std::uint8_t>()
                                       : whole.mask.copy_to(Device::cpu);
  const Field<std::uint8_t>& mask = host.empty() ? whole.mask : host;
  const FieldView<const std::uint8_t> m =
      mask.empty() ? FieldView<const std::uint8_t>{} : mask.cview();
  const Box b = whole.active.intersect(box);
  if (b.empty()) return;
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i)
        if (mask.empty() || m(i, j, k) == std::uint8_t(NodeKind::free)) f(i, j, k);
}

}  // namespace

template <class T>
std::array<std::vector<double>, 3> unknowns_per_plane(const StencilOperator<T>& whole) {
  std::array<std::vector<double>, 3> work;
  const Box nodes = whole.grid.box(whole.active.centring);
  for (int a = 0; a < whole.grid.dims; ++a) work[a].assign(std::size_t(nodes.extent(a)), 0.0);
  const int dims = whole.grid.dims;
  for_each_unknown(whole, nodes, [&](int i, int j, int k) {
    const int at[3] = {i, j, k};
    for (int a = 0; a < dims; ++a) work[a][std::size_t(at[a] - nodes.lo[a])] += 1;
  });
  return work;
}

template <class T>
std::int64_t unknowns_in(const StencilOperator<T>& whole, const Box& box) {
  if (whole.mask.empty()) {  // every active node is an unknown: no need to visit them
    const Box b = whole.active.intersect(box);
    return b.empty() ? 0 : b.cells();
  }
  std::int64_t n = 0;
  for_each_unknown(whole, box, [&](int, int, int) { ++n; });
  return n;
}

template std::array<std::vector<double>, 3> unknowns_per_plane(const StencilOperator<float>&);
template std::array<std::vector<double>, 3> unknowns_per_plane(const StencilOperator<double>&);
template std::int64_t unknowns_in(const StencilOperator<float>&, const Box&);
template std::int64_t unknowns_in(const StencilOperator<double>&, const Box&);
template StencilOperator<float> with_ghost_layers(const StencilOperator<float>&, int);
template StencilOperator<double> with_ghost_layers(const StencilOperator<double>&, int);
template StencilOperator<float> gather_operator(const StencilOperator<float>&, bool, Device);
template StencilOperator<double> gather_operator(const StencilOperator<double>&, bool, Device);
template StencilOperator<float> operator_part(const StencilOperator<float>&,
                                              std::shared_ptr<const Decomposition>, int);
template StencilOperator<double> operator_part(const StencilOperator<double>&,
                                               std::shared_ptr<const Decomposition>, int);

}  // namespace gridsolve
