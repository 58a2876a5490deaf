// Node and element marks of a ProblemSpec, computed by loop bodies on the assembling device.
#include "gridsolve/problem/domain_marks.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"

#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/problem/node_samples.hpp"

namespace gridsolve::detail {

Box region_nodes(const MaskRegion& r, const Grid& g) {
  const double tol[3] = {1e-9 * g.spacing[0], 1e-9 * g.spacing[1], 1e-9 * g.spacing[2]};
  const bool closed = r.kind != NodeKind::outside;
  Box b;
  for (int a = 0; a < 3; ++a) {
    if (a >= g.dims) {
      b.lo[a] = b.hi[a] = 0;
      continue;
    }
    const double lo = (r.lo[a] - g.origin[a] - tol[a]) / g.spacing[a];
    const double hi = (r.hi[a] - g.origin[a] + tol[a]) / g.spacing[a];
    const double lo_open = (r.lo[a] - g.origin[a] + tol[a]) / g.spacing[a];
    const double hi_open = (r.hi[a] - g.origin[a] - tol[a]) / g.spacing[a];
    const int first = closed ? int(std::ceil(lo)) : int(std::floor(lo_open)) + 1;
    const int last = closed ? int(std::floor(hi)) : int(std::ceil(hi_open)) - 1;
    b.lo[a] = std::max(0, first);
    b.hi[a] = std::min(g.n[a] - 1, last);
  }
  return b;
}

namespace {

// The indices a field holds, ghosts included (a 2D field has none along z).
template <class T>
Box held(const Field<T>& f) {
  Box b = f.interior().grown(f.ghost());
  if (f.dims() < 3) b.lo[2] = b.hi[2] = f.interior().lo[2];
  return b;
}

}  // namespace

template <class T>
void mark_nodes(const ProblemSpec& spec, Field<std::uint8_t>& kind, Field<T>& u) {
  const Grid& g = spec.grid;
  const Device dev = kind.device();
  // Only the nodes the fields hold are marked: all of them for whole fields, a rank's box
  // and its ghosts for a part (kind may reach further than u).
  const Box reach = g.nodes().intersect(held(kind)), u_reach = held(u);
  const FieldView<std::uint8_t> kv = kind.view();
  const FieldView<T> uv = u.view();
  // Sampled values stay alive until every loop queued on the device has run.
  std::vector<Samples> keep;
  for (int f = 0; f < 2 * g.dims; ++f) {
    const BoundaryCondition& bc = spec.boundaries[f];
    if (bc.kind != BoundaryKind::dirichlet) continue;
    const int axis = f / 2;
    Box side = g.nodes();
    side.lo[axis] = side.hi[axis] = (f % 2) ? g.n[axis] - 1 : 0;
    side = side.intersect(reach);
    if (side.empty()) continue;
    keep.push_back(Samples::of(bc.g, g, side, {0, 0, 0}, dev,
                               fmt::format("the Dirichlet value on {}", face_name(f))));
    const SampleView value = keep.back().view();
    for_each(dev, side, [=] GRIDSOLVE_HD(int i, int j, int k) {
      kv(i, j, k) = std::uint8_t(NodeKind::fixed);
      if (u_reach.contains(i, j, k)) uv(i, j, k) = T(value(i, j, k));
    });
  }
  for (std::size_t index = 0; index < spec.regions.size(); ++index) {
    const MaskRegion& r = spec.regions[index];
    const std::string name = r.name.empty() ? fmt::format("mask box {}", index) : r.name;
    const Box b = region_nodes(r, g);
    // A box between nodes or off the grid would silently do nothing.
    if (b.empty()) {
      std::string box;
      for (int a = 0; a < g.dims; ++a)
        box += fmt::format("{}[{:.6g}, {:.6g}]", a ? " x " : "", r.lo[a], r.hi[a]);
      throw Error(fmt::format(
          "{} ({}) holds no grid node{} (spacing {:.6g}); enlarge it, move it onto nodes or "
          "refine the grid",
          name, box, r.kind == NodeKind::outside ? " strictly inside it" : "", g.spacing[0]));
    }
    const Box mine = b.intersect(reach);
    if (mine.empty()) continue;
    const bool fixed = r.kind == NodeKind::fixed;
    keep.push_back(fixed ? Samples::of(r.value, g, mine, {0, 0, 0}, dev, name + " value")
                         : Samples::constant(0));
    const SampleView value = keep.back().view();
    const std::uint8_t mark = std::uint8_t(r.kind);
    for_each(dev, mine, [=] GRIDSOLVE_HD(int i, int j, int k) {
      kv(i, j, k) = mark;
      if (u_reach.contains(i, j, k)) uv(i, j, k) = fixed ? T(value(i, j, k)) : T(0);
    });
  }
  synchronize(dev);
}

void mark_elements(const Grid& g, const Field<std::uint8_t>& kind, Field<std::uint8_t>& inside) {
  const int d = g.dims;
  // The elements `inside` holds whose corners `kind` holds: every element for whole fields.
  Box corners_held = held(kind);
  for (int a = 0; a < d; ++a) corners_held.hi[a] -= 1;
  corners_held.centring = Centring::cell();
  const Box elements = g.box(Centring::cell()).intersect(held(inside)).intersect(corners_held);
  if (elements.empty()) return;
  const FieldView<const std::uint8_t> kv = kind.cview();
  const FieldView<std::uint8_t> in = inside.view();
  const int corners = d == 3 ? 8 : 4;
  for_each(kind.device(), elements, [=] GRIDSOLVE_HD(int i, int j, int k) {
    bool all = true;
    for (int c = 0; c < corners; ++c)
      all = all && kv(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1)) !=
                       std::uint8_t(NodeKind::outside);
    in(i, j, k) = all ? 1 : 0;
  });
}

template void mark_nodes<float>(const ProblemSpec&, Field<std::uint8_t>&, Field<float>&);
template void mark_nodes<double>(const ProblemSpec&, Field<std::uint8_t>&, Field<double>&);

}  // namespace gridsolve::detail
