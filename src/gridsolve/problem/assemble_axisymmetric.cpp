// Axisymmetric finite-volume assembly on (r, z) grids with masks, sides and cut-face fluxes.
#include "gridsolve/problem/assemble_axisymmetric.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "gridsolve/core/error.hpp"
#include "gridsolve/problem/domain_marks.hpp"

namespace gridsolve {

namespace {

struct AxisymmetricAssembler : detail::DomainMarks {
  double dr, dz;

  explicit AxisymmetricAssembler(const ProblemSpec& s)
      : DomainMarks(s), dr(s.grid.spacing[0]), dz(s.grid.spacing[1]) {}

  bool element_in_grid(int i, int j) const { return i >= 0 && j >= 0 && i < nx - 1 && j < ny - 1; }

  // Integral of r over the half of node i's dual-cell width on side oi (-1 west, 0 east).
  double half_width_moment(int i, int oi) const {
    const double r = x(i);
    return 0.5 * dr * (oi < 0 ? r - 0.25 * dr : r + 0.25 * dr);
  }

  double k_face(int i, int j, int axis, int s) const {
    int c[2] = {i, j};
    c[axis] += s;
    if (!spec.k_nodes.empty()) {
      const double a = spec.k_nodes[idx(i, j, 0)], b = spec.k_nodes[idx(c[0], c[1], 0)];
      return 2 * a * b / (a + b);
    }
    if (spec.k.is_constant()) return spec.k.constant;
    return spec.k(0.5 * (x(i) + x(c[0])), 0.5 * (y(j) + y(c[1])), 0.0);
  }
  double k_at(int i, int j) const {
    if (!spec.k_nodes.empty()) return spec.k_nodes[idx(i, j, 0)];
    return spec.k(x(i), y(j), 0.0);
  }
  double f_at(int i, int j) const {
    if (!spec.f_nodes.empty()) return spec.f_nodes[idx(i, j, 0)];
    return spec.f(x(i), y(j), 0.0);
  }

  // Lowest Jacobi mode of the bounding box, per axis Dirichlet-Dirichlet, Dirichlet-
  // Neumann or Neumann-Neumann (treated as the next mode up), weighted by the axis'
  // share of the diagonal (dz/dr against dr/dz per unit r).
  double jacobi_radius_estimate() const {
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
    return rho < 1 ? rho : std::cos(std::numbers::pi / (4.0 * std::max(nx, ny)));
  }
};

}  // namespace

template <class T>
Discretization<T> assemble_axisymmetric(const ProblemSpec& spec, Device device,
                                        const CutFlux& cut_flux) {
  spec.validate();
  const Grid& g = spec.grid;
  require(g.dims == 2,
          fmt::format("the axisymmetric operator is 2D (r, z), got {} dimensions", g.dims));
  require(g.origin[0] >= -1e-12 * g.spacing[0],
          fmt::format("the axisymmetric grid needs r >= 0, got r from {}", g.origin[0]));
  AxisymmetricAssembler as(spec);
  as.mark_nodes();
  as.mark_elements();
  const int nx = as.nx, ny = as.ny;
  const double dr = as.dr, dz = as.dz;

  StencilOperator<T> op;
  op.grid = g;
  op.grid.geometry = Geometry::axisymmetric;
  op.device = Device::cpu;
  op.uniform = false;
  op.active = g.nodes();
  Field<T> u(g, Device::cpu), ap(g, Device::cpu), aw(g, Device::cpu), ae(g, Device::cpu),
      asf(g, Device::cpu), an(g, Device::cpu), rhs(g, Device::cpu);
  Field<std::uint8_t> mask(g, Device::cpu);
  const FieldView<T> uv = u.view(), apv = ap.view(), rv = rhs.view();
  const FieldView<T> nb[4] = {aw.view(), ae.view(), asf.view(), an.view()};
  const FieldView<std::uint8_t> mv = mask.view();

  std::int64_t unknowns = 0;
  // Rows are independent: assemble them in parallel unless a parsed formula (which
  // keeps its variables inside the parser) has to be evaluated.
  const bool parallel = spec.concurrent();
#pragma omp parallel for reduction(+ : unknowns) schedule(dynamic, 4) if (parallel)
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const std::size_t id = as.idx(i, j, 0);
      unsigned char kd = as.kind[id];
      if (kd == (unsigned char)NodeKind::free && as.elements_around(i, j, 0, -1, 0) == 0)
        kd = (unsigned char)NodeKind::outside;  // isolated by cut-outs: not an unknown
      mv(i, j, 0) = kd;
      if (kd == (unsigned char)NodeKind::fixed) uv(i, j, 0) = T(as.value[id]);
      if (kd != (unsigned char)NodeKind::free) continue;
      ++unknowns;
      const double r = as.x(i), z = as.y(j);
      // Quadrants of the dual cell: (oi, oj) in {-1, 0}^2 names element (i + oi, j + oj).
      auto in = [&](int oi, int oj) { return as.inside(i + oi, j + oj, 0); };
      double volume = 0, diag = 0, b = 0;
      for (int oj = -1; oj <= 0; ++oj)
        for (int oi = -1; oi <= 0; ++oi)
          if (in(oi, oj)) volume += as.half_width_moment(i, oi) * 0.5 * dz;

      // Interior faces: west / east (normal r), south / north (normal z).
      for (int f = 0; f < 4; ++f) {
        const int axis = f / 2, s = (f % 2) ? 1 : -1, off = s < 0 ? -1 : 0;
        double moment = 0;  // integral of r over the face piece
        if (axis == 0) {
          const int cells = int(in(off, -1)) + int(in(off, 0));
          moment = (r + 0.5 * s * dr) * 0.5 * dz * cells;
        } else {
          for (int oi = -1; oi <= 0; ++oi)
            if (in(oi, off)) moment += as.half_width_moment(i, oi);
        }
        if (moment <= 0) continue;  // no element on that side, or the face lies on the axis
        const double a = as.k_face(i, j, axis, s) * moment / g.spacing[axis];
        nb[f](i, j, 0) = T(a);
        diag += a;
      }

      // Sides of the box: Neumann / Robin data over the part of the side the cell touches.
      const int c[2] = {i, j};
      for (int f = 0; f < 4; ++f) {
        const int axis = f / 2;
        const bool on_side = (f % 2) ? c[axis] == g.n[axis] - 1 : c[axis] == 0;
        const BoundaryCondition& bc = spec.boundaries[f];
        if (!on_side || bc.kind == BoundaryKind::dirichlet) continue;
        double moment = 0;
        if (axis == 0) {
          moment = r * 0.5 * dz * as.elements_around(i, j, 0, -1, 0);
        } else {
          for (int oj = -1; oj <= 0; ++oj)
            for (int oi = -1; oi <= 0; ++oi)
              if (in(oi, oj)) moment += as.half_width_moment(i, oi);
        }
        const double kp = as.k_at(i, j);
        b += kp * bc.g(r, z, 0.0) * moment;
        if (bc.kind == BoundaryKind::robin) diag += kp * bc.alpha * moment;
      }

      // Faces cut by masks: the half grid lines from the node that separate a domain
      // quadrant from a cut-out one. Their outward normal points into the cut-out side.
      if (cut_flux) {
        const double kp = as.k_at(i, j);
        for (int side = -1; side <= 0; ++side) {
          // Half line along r (west for side -1, east for 0): between quadrants (side, -1)
          // and (side, 0); normal along z.
          if (as.element_in_grid(i + side, j - 1) && as.element_in_grid(i + side, j) &&
              in(side, -1) != in(side, 0)) {
            const int sign = in(side, 0) ? -1 : 1;
            const double rm = r + (side < 0 ? -0.25 : 0.25) * dr;
            b += kp * cut_flux(rm, z, 1, sign) * as.half_width_moment(i, side);
          }
          // Half line along z (south for -1, north for 0): between quadrants (-1, side)
          // and (0, side); normal along r.
          if (as.element_in_grid(i - 1, j + side) && as.element_in_grid(i, j + side) &&
              in(-1, side) != in(0, side)) {
            const int sign = in(0, side) ? -1 : 1;
            const double zm = z + (side < 0 ? -0.25 : 0.25) * dz;
            b += kp * cut_flux(r, zm, 0, sign) * r * 0.5 * dz;
          }
        }
      }
      b += as.f_at(i, j) * volume;
      apv(i, j, 0) = T(diag);
      rv(i, j, 0) = T(b);
    }
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
  op.jacobi_radius = as.jacobi_radius_estimate();
  for (int f = 0; f < 6; ++f) op.sides[f] = spec.boundaries[f].kind;
  op.k_constant = 0;  // not the Cartesian constant-k operator that structured solvers want
  for (const MaskRegion& reg : spec.regions) {
    op.has_cutouts = op.has_cutouts || reg.kind == NodeKind::outside;
    op.has_fixed_regions = op.has_fixed_regions || reg.kind == NodeKind::fixed;
  }

  Discretization<T> out;
  if (device == Device::cpu) {
    out.op = std::move(op);
    out.u = std::move(u);
  } else {
    out.op = op.copy_to(device);
    out.u = u.copy_to(device);
  }
  return out;
}

template Discretization<float> assemble_axisymmetric<float>(const ProblemSpec&, Device,
                                                            const CutFlux&);
template Discretization<double> assemble_axisymmetric<double>(const ProblemSpec&, Device,
                                                              const CutFlux&);

}  // namespace gridsolve
