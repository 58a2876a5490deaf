// DomainMarks: which nodes of a ProblemSpec's grid are free, fixed or outside, and which
// elements (cells between nodes) belong to the domain; shared by the assemblers.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"
#include "gridsolve/problem/problem_spec.hpp"

namespace gridsolve::detail {

struct DomainMarks {
  const ProblemSpec& spec;
  const Grid& g;
  int d, nx, ny, nz;
  std::vector<unsigned char> kind;
  std::vector<double> value;
  std::vector<unsigned char> element_inside;

  explicit DomainMarks(const ProblemSpec& s)
      : spec(s), g(s.grid), d(s.grid.dims), nx(s.grid.n[0]), ny(s.grid.n[1]), nz(s.grid.n[2]) {}

  std::size_t idx(int i, int j, int k) const {
    return std::size_t(i) + std::size_t(nx) * (j + std::size_t(ny) * k);
  }
  double x(int i) const { return g.coord(0, i); }
  double y(int j) const { return g.coord(1, j); }
  double z(int k) const { return d == 3 ? g.coord(2, k) : 0.0; }

  // "(0.5, 0.25)" or "(0.5, 0.25, 1)": where a value was found wrong.
  std::string where(int i, int j, int k) const {
    return d == 3 ? fmt::format("({:.6g}, {:.6g}, {:.6g})", x(i), y(j), z(k))
                  : fmt::format("({:.6g}, {:.6g})", x(i), y(j));
  }

  // A value from the user's data that the discretization takes: non-finite is bad input,
  // named with the quantity and the place.
  double finite(double v, const std::string& what, int i, int j, int k) const {
    if (!std::isfinite(v))
      throw Error(fmt::format("{} is {} at {}; every value the problem takes must be finite", what,
                              number_text(v), where(i, j, k)));
    return v;
  }

  static std::string region_name(const MaskRegion& r, std::size_t index) {
    return r.name.empty() ? fmt::format("mask box {}", index) : r.name;
  }

  void mark_nodes() {
    kind.assign(std::size_t(g.node_count()), (unsigned char)NodeKind::free);
    value.assign(kind.size(), 0.0);
    const int n[3] = {nx, ny, nz};
    for (int f = 0; f < 2 * d; ++f) {
      const BoundaryCondition& bc = spec.boundaries[f];
      if (bc.kind != BoundaryKind::dirichlet) continue;
      const int axis = f / 2, at = (f % 2) ? n[axis] - 1 : 0;
      for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
          for (int i = 0; i < nx; ++i) {
            const int c[3] = {i, j, k};
            if (c[axis] != at) continue;
            kind[idx(i, j, k)] = (unsigned char)NodeKind::fixed;
            value[idx(i, j, k)] =
                finite(bc.g(x(i), y(j), z(k)),
                       fmt::format("the Dirichlet value on {}", face_name(f)), i, j, k);
          }
    }
    for (std::size_t index = 0; index < spec.regions.size(); ++index) {
      const MaskRegion& r = spec.regions[index];
      const double tol[3] = {1e-9 * g.spacing[0], 1e-9 * g.spacing[1], 1e-9 * g.spacing[2]};
      // Fixed boxes take the nodes on their surface too; outside boxes remove only the
      // nodes strictly inside, so the surface stays in the domain as its boundary.
      const bool closed = r.kind != NodeKind::outside;
      auto range = [&](int a, int count) {
        const double lo = (r.lo[a] - g.origin[a] - tol[a]) / g.spacing[a];
        const double hi = (r.hi[a] - g.origin[a] + tol[a]) / g.spacing[a];
        const double lo_open = (r.lo[a] - g.origin[a] + tol[a]) / g.spacing[a];
        const double hi_open = (r.hi[a] - g.origin[a] - tol[a]) / g.spacing[a];
        const int first = closed ? int(std::ceil(lo)) : int(std::floor(lo_open)) + 1;
        const int last = closed ? int(std::floor(hi)) : int(std::ceil(hi_open)) - 1;
        return std::pair<int, int>{std::max(0, first), std::min(count - 1, last)};
      };
      const auto [i0, i1] = range(0, nx);
      const auto [j0, j1] = range(1, ny);
      const auto [k0, k1] = d == 3 ? range(2, nz) : std::pair<int, int>{0, 0};
      // A box between nodes or off the grid would silently do nothing.
      if (i0 > i1 || j0 > j1 || k0 > k1) {
        std::string box;
        for (int a = 0; a < d; ++a)
          box += fmt::format("{}[{:.6g}, {:.6g}]", a ? " x " : "", r.lo[a], r.hi[a]);
        throw Error(fmt::format(
            "{} ({}) holds no grid node{} (spacing {:.6g}); enlarge it, move it onto nodes or "
            "refine the grid",
            region_name(r, index), box, r.kind == NodeKind::outside ? " strictly inside it" : "",
            g.spacing[0]));
      }
      const std::string what = region_name(r, index) + " value";
      for (int k = k0; k <= k1; ++k)
        for (int j = j0; j <= j1; ++j)
          for (int i = i0; i <= i1; ++i) {
            kind[idx(i, j, k)] = (unsigned char)r.kind;
            value[idx(i, j, k)] =
                r.kind == NodeKind::fixed ? finite(r.value(x(i), y(j), z(k)), what, i, j, k) : 0.0;
          }
    }
  }

  // An element (the cell between nodes) belongs to the domain when none of its corners
  // is outside.
  void mark_elements() {
    const int ex = nx - 1, ey = ny - 1, ez = d == 3 ? nz - 1 : 1;
    element_inside.assign(std::size_t(ex) * ey * ez, 1);
    for (int k = 0; k < ez; ++k)
      for (int j = 0; j < ey; ++j)
        for (int i = 0; i < ex; ++i) {
          bool in = true;
          for (int c = 0; c < (d == 3 ? 8 : 4); ++c)
            if (kind[idx(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1))] ==
                (unsigned char)NodeKind::outside)
              in = false;
          element_inside[std::size_t(i) + std::size_t(ex) * (j + std::size_t(ey) * k)] = in;
        }
  }

  bool inside(int i, int j, int k) const {
    const int ex = nx - 1, ey = ny - 1, ez = d == 3 ? nz - 1 : 1;
    if (i < 0 || j < 0 || k < 0 || i >= ex || j >= ey || k >= ez) return false;
    return element_inside[std::size_t(i) + std::size_t(ex) * (j + std::size_t(ey) * k)];
  }

  // Number of domain elements around node P whose offset on `axis` is `off` (-1 or 0),
  // or any offset when axis < 0.
  int elements_around(int i, int j, int k, int axis, int off) const {
    int count = 0;
    const int zs = d == 3 ? -1 : 0;
    for (int ok = zs; ok <= 0; ++ok)
      for (int oj = -1; oj <= 0; ++oj)
        for (int oi = -1; oi <= 0; ++oi) {
          const int o[3] = {oi, oj, ok};
          if (axis >= 0 && o[axis] != off) continue;
          count += inside(i + oi, j + oj, k + ok);
        }
    return count;
  }
};

}  // namespace gridsolve::detail
