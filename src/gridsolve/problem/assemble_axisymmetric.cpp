// Axisymmetric finite-volume assembly on (r, z) grids with masks, sides and cut-face fluxes,
// run on the device that solves.
#include "gridsolve/problem/assemble_axisymmetric.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/problem/assembly_data.hpp"
#include "gridsolve/problem/domain_marks.hpp"

namespace gridsolve {

namespace {

// Integral of r over the half of a dual cell's width on side oi (-1 west, 0 east), r the
// node's radius.
GRIDSOLVE_HD inline double half_width_moment(double r, double dr, int oi) {
  return 0.5 * dr * (oi < 0 ? r - 0.25 * dr : r + 0.25 * dr);
}

// Lowest Jacobi mode of the bounding box, per axis Dirichlet-Dirichlet, Dirichlet-
// Neumann or Neumann-Neumann (treated as the next mode up), weighted by the axis'
// share of the diagonal (dz/dr against dr/dz per unit r).
double jacobi_radius_estimate(const ProblemSpec& spec) {
  const Grid& g = spec.grid;
  const double dr = g.spacing[0], dz = g.spacing[1];
  const double w[2] = {dz / dr, dr / dz};
  double num = 0, den = 0;
  for (int a = 0; a < 2; ++a) {
    const bool lo = spec.boundaries[2 * a].kind != BoundaryKind::neumann;
    const bool hi = spec.boundaries[2 * a + 1].kind != BoundaryKind::neumann;
    const double lines = g.n[a] - 1;
    const double c = lo && hi   ? std::cos(std::numbers::pi / lines)
                     : lo || hi ? std::cos(std::numbers::pi / (2 * lines))
                                : 1.0;
    num += w[a] * c;
    den += w[a];
  }
  const double rho = num / den;
  return rho < 1 ? rho : std::cos(std::numbers::pi / (4.0 * std::max(g.n[0], g.n[1])));
}

// The cut-face terms of b (k du/dn times the face's r moment, summed per node), for the
// few nodes next to a cut-out: the flux is a host function, so they are computed on the
// host, over the nodes near the outside regions only, from marks of that window alone.
// Sorted by node (x fastest); loop bodies look their node up.
struct CutTerms {
  Box window;  // the nodes that may have terms
  std::vector<std::int64_t> node;
  std::vector<double> value;
};

CutTerms cut_terms(const ProblemSpec& spec, const CutFlux& cut_flux) {
  CutTerms out;
  const Grid& g = spec.grid;
  const int nx = g.n[0], ny = g.n[1];
  const double dr = g.spacing[0], dz = g.spacing[1];
  // Elements lose their place in the domain only at outside nodes, so cut faces lie
  // within one node of an outside region; their quadrants' marks within two.
  Box near;
  for (const MaskRegion& r : spec.regions) {
    if (r.kind != NodeKind::outside) continue;
    const Box b = detail::region_nodes(r, g);
    if (b.empty()) continue;
    near = near.empty() ? b : near.hull(b);
  }
  if (near.empty() || !cut_flux) return out;
  const Box nodes = g.nodes();
  const Box marks = near.grown(2).intersect(nodes);
  out.window = near.grown(1).intersect(nodes);
  // Node kinds on the marks window: Dirichlet sides in face order, then the regions.
  const int wx = marks.extent(0), wy = marks.extent(1);
  std::vector<unsigned char> kind(std::size_t(wx) * wy, (unsigned char)NodeKind::free);
  auto at = [&](int i, int j) -> unsigned char& {
    return kind[std::size_t(i - marks.lo[0]) + std::size_t(wx) * (j - marks.lo[1])];
  };
  for (int f = 0; f < 4; ++f) {
    if (spec.boundaries[f].kind != BoundaryKind::dirichlet) continue;
    Box side = nodes;
    side.lo[f / 2] = side.hi[f / 2] = (f % 2) ? g.n[f / 2] - 1 : 0;
    side = side.intersect(marks);
    for (int j = side.lo[1]; j <= side.hi[1]; ++j)
      for (int i = side.lo[0]; i <= side.hi[0]; ++i) at(i, j) = (unsigned char)NodeKind::fixed;
  }
  for (const MaskRegion& r : spec.regions) {
    const Box b = detail::region_nodes(r, g).intersect(marks);
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i) at(i, j) = (unsigned char)r.kind;
  }
  // An element (lowest corner i, j) is in the domain when no corner is outside; elements
  // off the grid are not.
  auto in = [&](int i, int j) {
    if (i < 0 || j < 0 || i >= nx - 1 || j >= ny - 1) return false;
    for (int c = 0; c < 4; ++c)
      if (at(i + (c & 1), j + (c >> 1)) == (unsigned char)NodeKind::outside) return false;
    return true;
  };
  auto element_in_grid = [&](int i, int j) { return i >= 0 && j >= 0 && i < nx - 1 && j < ny - 1; };
  for (int j = out.window.lo[1]; j <= out.window.hi[1]; ++j)
    for (int i = out.window.lo[0]; i <= out.window.hi[0]; ++i) {
      if (at(i, j) != (unsigned char)NodeKind::free) continue;
      const double r = g.coord(0, i), z = g.coord(1, j);
      double kp = 0;
      bool any = false;
      double c = 0;
      for (int side = -1; side <= 0; ++side) {
        // Half line along r (west for side -1, east for 0): between quadrants (side, -1)
        // and (side, 0); normal along z.
        if (element_in_grid(i + side, j - 1) && element_in_grid(i + side, j) &&
            in(i + side, j - 1) != in(i + side, j)) {
          if (!any)
            kp = spec.k_nodes.empty() ? spec.k(r, z, 0.0)
                                      : spec.k_nodes[std::size_t(i) + std::size_t(nx) * j];
          any = true;
          const int sign = in(i + side, j) ? -1 : 1;
          const double rm = r + (side < 0 ? -0.25 : 0.25) * dr;
          c += kp * cut_flux(rm, z, 1, sign) * half_width_moment(r, dr, side);
        }
        // Half line along z (south for -1, north for 0): between quadrants (-1, side)
        // and (0, side); normal along r.
        if (element_in_grid(i - 1, j + side) && element_in_grid(i, j + side) &&
            in(i - 1, j + side) != in(i, j + side)) {
          if (!any)
            kp = spec.k_nodes.empty() ? spec.k(r, z, 0.0)
                                      : spec.k_nodes[std::size_t(i) + std::size_t(nx) * j];
          any = true;
          const int sign = in(i, j + side) ? -1 : 1;
          const double zm = z + (side < 0 ? -0.25 : 0.25) * dz;
          c += kp * cut_flux(r, zm, 0, sign) * r * 0.5 * dz;
        }
      }
      if (!any) continue;
      out.node.push_back(std::int64_t(i) + std::int64_t(nx) * j);
      out.value.push_back(c);
    }
  return out;
}

// The cut terms as loop bodies read them.
struct CutView {
  Box window;
  const std::int64_t* node = nullptr;
  const double* value = nullptr;
  std::int64_t count = 0;
  std::int64_t nx = 0;

  // Whether node (i, j) has cut terms, and their sum in *c.
  GRIDSOLVE_HD bool find(int i, int j, double* c) const {
    if (count == 0 || !window.contains(i, j, 0)) return false;
    const std::int64_t key = std::int64_t(i) + nx * j;
    std::int64_t lo = 0, hi = count;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi) / 2;
      if (node[mid] < key)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == count || node[lo] != key) return false;
    *c = value[lo];
    return true;
  }
};

}  // namespace

template <class T>
Discretization<T> assemble_axisymmetric(const ProblemSpec& spec, Device device,
                                        const CutFlux& cut_flux, const RankPart& part) {
  spec.validate();
  const Grid& g = spec.grid;
  require(g.dims == 2,
          fmt::format("the axisymmetric operator is 2D (r, z), got {} dimensions", g.dims));
  require(g.origin[0] >= -1e-12 * g.spacing[0],
          fmt::format("the axisymmetric grid needs r >= 0, got r from {}", g.origin[0]));
  for (int f = 0; f < 4; ++f)
    require(spec.boundaries[f].kind != BoundaryKind::periodic,
            fmt::format("{} is periodic; the axisymmetric operator takes dirichlet, neumann or "
                        "robin sides",
                        face_name(f)));
  const int nx = g.n[0], ny = g.n[1];
  const double dr = g.spacing[0], dz = g.spacing[1];

  const bool split = bool(part.parts);
  require(!split || (part.parts->global().lo == g.nodes().lo &&
                     part.parts->global().hi == g.nodes().hi && part.parts->dims() == 2),
          "a rank's part is assembled from a decomposition of the grid's nodes");

  // Everything is built in the memory of the device that solves.
  StencilOperator<T> op;
  op.grid = g;
  op.grid.geometry = Geometry::axisymmetric;
  op.device = device;
  op.uniform = false;
  op.active = g.nodes();
  // A field of the whole grid, or of the part's box (global indices), with ghost width w.
  auto node_field = [&]<class V>(V, int w) {
    return split ? Field<V>(part.parts, part.rank, 1, w, device)
                 : Field<V>(g, Centring::node(), 1, w, device);
  };
  Field<T> u = node_field(T(), 1), ap = node_field(T(), 1), aw = node_field(T(), 1),
           ae = node_field(T(), 1), asf = node_field(T(), 1), an = node_field(T(), 1),
           rhs = node_field(T(), 1);
  Field<std::uint8_t> mask = node_field(std::uint8_t(), 1);
  // The rows of a part's ghost nodes (what its solver reads beside its box) are those of
  // the whole operator: their elements need node marks one node further out.
  Field<std::uint8_t> wide = split ? node_field(std::uint8_t(), 2) : Field<std::uint8_t>();
  Field<std::uint8_t>& kind = split ? wide : mask;
  Box element_box = split ? part.parts->box(part.rank) : g.box(Centring::cell());
  element_box.centring = Centring::cell();
  Field<std::uint8_t> elements(element_box, 2, 1, split ? 2 : 1, device);
  detail::mark_nodes(spec, kind, u);
  detail::mark_elements(g, kind, elements);
  const detail::ElementMarks em{elements.cview(), 2};
  // The nodes whose rows are assembled: every node, or the part's box and its ghosts.
  const Box rows = split ? part.parts->box(part.rank).grown(1).intersect(g.nodes()) : g.nodes();
  if (split) {
    const FieldView<const std::uint8_t> from = wide.cview();
    const FieldView<std::uint8_t> to = mask.view();
    for_each(device, rows, [=] GRIDSOLVE_HD(int i, int j, int k) { to(i, j, k) = from(i, j, k); });
  }

  const detail::AssemblyData data(spec, device, true, rows);
  const detail::FaceConductivity k_face = data.k_face;
  const SampleView fv = data.f;
  detail::SideData sides;
  for (int f = 0; f < 4; ++f) {
    sides.k[f] = data.k_side[f], sides.g[f] = data.g_side[f];
    sides.kind[f] = spec.boundaries[f].kind, sides.alpha[f] = spec.boundaries[f].alpha;
  }
  const CutTerms cut = cut_terms(spec, cut_flux);
  Buffer<std::int64_t> cut_node(device, cut.node.size());
  Buffer<double> cut_value(device, cut.value.size());
  if (!cut.node.empty()) {
    copy_bytes(cut_node.data(), device, cut.node.data(), Device::cpu,
               cut.node.size() * sizeof(std::int64_t));
    copy_bytes(cut_value.data(), device, cut.value.data(), Device::cpu,
               cut.value.size() * sizeof(double));
  }
  const CutView cv{cut.window, cut_node.data(), cut_value.data(), std::int64_t(cut.node.size()),
                   nx};

  const FieldView<T> apv = ap.view(), rv = rhs.view();
  const FieldView<T> nb[4] = {aw.view(), ae.view(), asf.view(), an.view()};
  const FieldView<std::uint8_t> mv = mask.view();
  const int n[2] = {nx, ny};
  const double r0 = g.origin[0];
  // One row per node, independent of the others: the loop body runs where the solve does.
  for_each(device, rows, [=] GRIDSOLVE_HD(int i, int j, int) {
    std::uint8_t kd = mv(i, j, 0);
    const int around = em.around(i, j, 0, -1, 0);
    if (kd == std::uint8_t(NodeKind::free) && around == 0) {
      kd = std::uint8_t(NodeKind::outside);  // isolated by cut-outs: not an unknown
      mv(i, j, 0) = kd;
    }
    if (kd != std::uint8_t(NodeKind::free)) return;
    const double r = r0 + i * dr;
    // Quadrants of the dual cell: (oi, oj) in {-1, 0}^2 names element (i + oi, j + oj).
    auto in = [&](int oi, int oj) { return em.inside(i + oi, j + oj, 0); };
    double volume = 0, diag = 0, b = 0;
    for (int oj = -1; oj <= 0; ++oj)
      for (int oi = -1; oi <= 0; ++oi)
        if (in(oi, oj)) volume += half_width_moment(r, dr, oi) * 0.5 * dz;

    // Interior faces: west / east (normal r), south / north (normal z).
    for (int f = 0; f < 4; ++f) {
      const int axis = f / 2, s = (f % 2) ? 1 : -1, off = s < 0 ? -1 : 0;
      double moment = 0;  // integral of r over the face piece
      if (axis == 0) {
        const int cells = int(in(off, -1)) + int(in(off, 0));
        moment = (r + 0.5 * s * dr) * 0.5 * dz * cells;
      } else {
        for (int oi = -1; oi <= 0; ++oi)
          if (in(oi, off)) moment += half_width_moment(r, dr, oi);
      }
      if (moment <= 0) continue;  // no element on that side, or the face lies on the axis
      const double a = k_face(i, j, 0, axis, s) * moment / (axis == 0 ? dr : dz);
      nb[f](i, j, 0) = T(a);
      diag += a;
    }

    // Sides of the box: Neumann / Robin data over the part of the side the cell touches.
    const int c[2] = {i, j};
    for (int f = 0; f < 4; ++f) {
      const int axis = f / 2;
      const bool on_side = (f % 2) ? c[axis] == n[axis] - 1 : c[axis] == 0;
      if (!on_side || sides.kind[f] == BoundaryKind::dirichlet) continue;
      double moment = 0;
      if (axis == 0) {
        moment = r * 0.5 * dz * around;
      } else {
        for (int oj = -1; oj <= 0; ++oj)
          for (int oi = -1; oi <= 0; ++oi)
            if (in(oi, oj)) moment += half_width_moment(r, dr, oi);
      }
      const double kp = sides.k[f](i, j, 0);
      b += kp * sides.g[f](i, j, 0) * moment;
      if (sides.kind[f] == BoundaryKind::robin) diag += kp * sides.alpha[f] * moment;
    }

    // Faces cut by masks (a hole's surface): their terms, summed on the host.
    double cut_sum = 0;
    if (cv.find(i, j, &cut_sum)) b += cut_sum;
    b += fv(i, j, 0) * volume;
    apv(i, j, 0) = T(diag);
    rv(i, j, 0) = T(b);
  });
  if (split) {
    op.global_active = g.nodes();
    op.active = g.nodes().intersect(part.parts->box(part.rank));
  }
  const FieldView<const std::uint8_t> kv = mask.cview();
  std::int64_t unknowns = reduce<std::int64_t>(
      device, op.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> std::int64_t {
        return kv(i, j, k) == std::uint8_t(NodeKind::free) ? 1 : 0;
      },
      SumOp{}, std::int64_t(0));
  if (split) unknowns = std::int64_t(Communicator::world().sum(double(unknowns)));
  require(unknowns > 0, "the domain is empty: every node is fixed or outside, nothing to solve");
  bool anchored = false;
  for (int f = 0; f < 4; ++f)
    anchored = anchored || spec.boundaries[f].kind != BoundaryKind::neumann;
  for (const MaskRegion& reg : spec.regions) anchored = anchored || reg.kind == NodeKind::fixed;
  require(anchored,
          "the problem has no Dirichlet or Robin side and no fixed node, so its solution is "
          "not unique; fix a value somewhere");

  op.ap = std::move(ap), op.aw = std::move(aw), op.ae = std::move(ae), op.as = std::move(asf),
  op.an = std::move(an);
  op.rhs = std::move(rhs);
  op.mask = std::move(mask);
  op.unknowns = unknowns;
  op.parts = part.parts;
  op.rank = part.rank;
  op.jacobi_radius = jacobi_radius_estimate(spec);
  for (int f = 0; f < 6; ++f) op.sides[f] = spec.boundaries[f].kind;
  op.k_constant = 0;  // not the Cartesian constant-k operator that structured solvers want
  for (const MaskRegion& reg : spec.regions) {
    op.has_cutouts = op.has_cutouts || reg.kind == NodeKind::outside;
    op.has_fixed_regions = op.has_fixed_regions || reg.kind == NodeKind::fixed;
  }

  Discretization<T> out;
  out.op = std::move(op);
  out.u = std::move(u);
  return out;
}

template Discretization<float> assemble_axisymmetric<float>(const ProblemSpec&, Device,
                                                            const CutFlux&, const RankPart&);
template Discretization<double> assemble_axisymmetric<double>(const ProblemSpec&, Device,
                                                              const CutFlux&, const RankPart&);

}  // namespace gridsolve
