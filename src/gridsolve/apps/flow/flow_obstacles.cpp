#include "gridsolve/apps/flow/flow_obstacles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gridsolve/apps/flow/flow_fields.hpp"
#include "gridsolve/core/error.hpp"

namespace gridsolve::flow {

namespace {

using Point = std::array<double, 2>;

// The polygon of a rectangle or polygon obstacle, counter-clockwise.
std::vector<Point> outline(const Obstacle& o) {
  if (o.shape == Obstacle::Shape::rectangle)
    return {{o.lo[0], o.lo[1]}, {o.hi[0], o.lo[1]}, {o.hi[0], o.hi[1]}, {o.lo[0], o.hi[1]}};
  std::vector<Point> v = o.vertices;
  double area = 0;
  for (std::size_t a = 0; a < v.size(); ++a) {
    const Point& p = v[a];
    const Point& q = v[(a + 1) % v.size()];
    area += p[0] * q[1] - q[0] * p[1];
  }
  if (area < 0) std::reverse(v.begin(), v.end());
  return v;
}

SurfacePoint nearest_on(const Obstacle& o, double x, double y) {
  SurfacePoint s;
  if (o.shape == Obstacle::Shape::circle) {
    const double dx = x - o.centre[0], dy = y - o.centre[1], r = std::hypot(dx, dy);
    if (r > 0) s.nx = dx / r, s.ny = dy / r;
    s.x = o.centre[0] + o.radius * s.nx;
    s.y = o.centre[1] + o.radius * s.ny;
    s.distance = r - o.radius;
    return s;
  }
  const std::vector<Point> v = outline(o);
  double best = 1e300;
  for (std::size_t a = 0; a < v.size(); ++a) {
    const Point& p = v[a];
    const Point& q = v[(a + 1) % v.size()];
    const double ex = q[0] - p[0], ey = q[1] - p[1], len2 = ex * ex + ey * ey;
    const double t = std::clamp(((x - p[0]) * ex + (y - p[1]) * ey) / len2, 0.0, 1.0);
    const double cx = p[0] + t * ex, cy = p[1] + t * ey, d = std::hypot(x - cx, y - cy);
    if (d < best) {
      best = d;
      s.x = cx, s.y = cy;
      const double len = std::sqrt(len2);
      s.nx = ey / len, s.ny = -ex / len;  // outward for a counter-clockwise outline
    }
  }
  const bool in = o.contains(x, y);
  if (best > 1e-14) {
    const double sgn = in ? -1.0 : 1.0;
    s.nx = sgn * (x - s.x) / best, s.ny = sgn * (y - s.y) / best;
  }
  s.distance = in ? -best : best;
  return s;
}

}  // namespace

bool inside_any(const std::vector<Obstacle>& obstacles, double x, double y) {
  for (const Obstacle& o : obstacles)
    if (o.contains(x, y)) return true;
  return false;
}

void require_resolved(const std::vector<Obstacle>& obstacles, const MacGrid& grid,
                      ObstacleTreatment treatment) {
  const auto& n = grid.cells();
  for (const Obstacle& o : obstacles) {
    // The shape's bounding box: only points there can lie inside it.
    double lo[2], hi[2];
    if (o.shape == Obstacle::Shape::circle) {
      for (int a = 0; a < 2; ++a)
        lo[a] = o.centre[std::size_t(a)] - o.radius, hi[a] = o.centre[std::size_t(a)] + o.radius;
    } else {
      const std::vector<Point> v = outline(o);
      lo[0] = lo[1] = 1e300, hi[0] = hi[1] = -1e300;
      for (const Point& p : v)
        for (int a = 0; a < 2; ++a)
          lo[a] = std::min(lo[a], p[std::size_t(a)]), hi[a] = std::max(hi[a], p[std::size_t(a)]);
    }
    // Candidate coordinates along each axis: cell centres, and faces for the immersed
    // boundary (a u face sits at (face x, centre y), a v face at (centre x, face y)).
    auto within = [&](int a, bool faces) {
      std::vector<double> xs;
      const int count = faces ? n[a] + 1 : n[a];
      for (int i = 0; i < count; ++i) {
        const double x = faces ? grid.xf(a, i) : grid.xc(a, i);
        if (x >= lo[a] && x <= hi[a]) xs.push_back(x);
      }
      return xs;
    };
    auto any_inside = [&](const std::vector<double>& xs, const std::vector<double>& ys) {
      for (const double y : ys)
        for (const double x : xs)
          if (o.contains(x, y)) return true;
      return false;
    };
    const std::vector<double> cx = within(0, false), cy = within(1, false);
    const bool resolved = treatment == ObstacleTreatment::staircase
                              ? any_inside(cx, cy)
                              : any_inside(within(0, true), cy) || any_inside(cx, within(1, true));
    require(resolved, fmt::format("obstacle {} is smaller than the grid resolves: no {} lies "
                                  "inside it; refine the grid there or leave it out",
                                  o.describe(),
                                  treatment == ObstacleTreatment::staircase ? "cell centre"
                                                                            : "velocity face"));
  }
}

SurfacePoint nearest_surface(const std::vector<Obstacle>& obstacles, double x, double y) {
  SurfacePoint best;
  for (const Obstacle& o : obstacles) {
    const SurfacePoint s = nearest_on(o, x, y);
    if (s.distance < best.distance) best = s;
  }
  return best;
}

// A wall closer to a face than this fraction of the link is taken at that distance: a
// face nearly on the wall would otherwise couple to the pressure almost not at all (its
// wall term ~ 1 / distance), and a cell whose only open face it is leaves the pressure
// system too weakly tied for multigrid (seen below about 1/100 at 64 cells per diameter).
constexpr double min_fraction = 0.05;

BodyFaces body_faces(const FlowCase& c, const MacGrid& grid, int comp) {
  const int dims = c.dims;
  const auto& n = grid.cells();
  const auto ext = face_extent(n, comp);
  const MacGeometry g = grid.host_geometry();
  const bool immersed = c.obstacle_treatment == ObstacleTreatment::immersed;
  BodyFaces out{make_staggered<std::uint8_t>(n, dims, comp, Device::cpu),
                make_staggered<double>(n, dims, comp, Device::cpu),
                make_staggered<double>(n, dims, comp, Device::cpu)};
  const FieldView<std::uint8_t> fixed = out.fixed.view();
  const FieldView<double> wall = out.wall.view();
  const FieldView<double> open = out.open.view();
  for (int k = dims == 3 ? -1 : 0; k <= (dims == 3 ? ext[2] : 0); ++k)
    for (int j = -1; j <= ext[1]; ++j)
      for (int i = -1; i <= ext[0]; ++i) open(i, j, k) = 1;
  if (c.obstacles.empty()) return out;

  // Position of face I of this component.
  auto position = [&](const int* I, double* x) {
    for (int a = 0; a < 3; ++a) x[a] = a == comp ? g.xf(a, I[a]) : (a < dims ? g.xc(a, I[a]) : 0.0);
  };
  auto solid_cell = [&](int i, int j) {
    if (i < 0 || j < 0 || i >= n[0] || j >= n[1]) return false;
    return inside_any(c.obstacles, g.xc(0, i), g.xc(1, j));
  };
  for (int k = 0; k < ext[2]; ++k)
    for (int j = 0; j < ext[1]; ++j)
      for (int i = 0; i < ext[0]; ++i) {
        const int I[3] = {i, j, k};
        bool in;
        if (immersed) {
          double x[3];
          position(I, x);
          in = inside_any(c.obstacles, x[0], x[1]);
        } else {
          int L[3] = {i, j, k};
          L[comp] -= 1;
          in = solid_cell(i, j) || solid_cell(L[0], L[1]);
        }
        fixed(i, j, k) = in ? 1 : 0;
      }

  // Open fractions. The fluid part of a segment from (x, y) along axis t, of length len:
  // its crossings of the surface are found by bisection within 32 pieces, each part
  // classified by its middle (1 where the segment meets no body).
  auto open_along = [&](double x, double y, int t, double len) {
    auto in_at = [&](double s) {
      double p[2] = {x, y};
      p[t] += s * len;
      return inside_any(c.obstacles, p[0], p[1]);
    };
    constexpr int pieces = 32;
    std::vector<double> cuts{0.0};
    bool any = false;
    for (int m = 0; m < pieces; ++m) {
      double lo = double(m) / pieces, hi = double(m + 1) / pieces;
      const bool il = in_at(lo), ih = in_at(hi);
      any |= il || ih;
      if (il == ih) continue;
      for (int it = 0; it < 50; ++it) {
        const double mid = 0.5 * (lo + hi);
        (in_at(mid) == il ? lo : hi) = mid;
      }
      cuts.push_back(0.5 * (lo + hi));
    }
    if (!any) return 1.0;
    cuts.push_back(1.0);
    double fluid = 0;
    for (std::size_t m = 0; m + 1 < cuts.size(); ++m)
      if (!in_at(0.5 * (cuts[m] + cuts[m + 1]))) fluid += cuts[m + 1] - cuts[m];
    return fluid;
  };
  // A u or v face is the segment across the other in-plane axis (in 3D that segment swept
  // along z, which the extruded bodies do not change); a w face (3D) is the cell's x-y
  // rectangle, its open area the mean of 32 segments across y at the midpoints along x.
  // The bodies do not vary along z: one plane's fractions serve every plane.
  if (immersed) {
    for (int j = 0; j < ext[1]; ++j)
      for (int i = 0; i < ext[0]; ++i) {
        const int I[3] = {i, j, 0};
        double x[3];
        position(I, x);
        double fluid;
        if (comp < 2) {
          const int t = 1 - comp;
          const double a0 = g.xf(t, I[t]), a1 = g.xf(t, I[t] + 1);
          fluid = t == 0 ? open_along(a0, x[1], 0, a1 - a0) : open_along(x[0], a0, 1, a1 - a0);
        } else {
          const double x0 = g.xf(0, i), x1 = g.xf(0, i + 1), y0 = g.xf(1, j), y1 = g.xf(1, j + 1);
          constexpr int lines = 32;
          fluid = 0;
          for (int m = 0; m < lines; ++m)
            fluid += open_along(x0 + (m + 0.5) / lines * (x1 - x0), y0, 1, y1 - y0) / lines;
        }
        if (fluid == 1.0) continue;
        for (int k = 0; k < ext[2]; ++k) open(i, j, k) = fluid;
      }
  }

  // Wall terms of the free faces beside fixed ones (boundary faces of the normal axis are
  // given values and need none).
  for (int k = 0; k < ext[2]; ++k)
    for (int j = 0; j < ext[1]; ++j)
      for (int i = 0; i < ext[0]; ++i) {
        const int I[3] = {i, j, k};
        if (fixed(i, j, k) || I[comp] == 0 || I[comp] == ext[comp] - 1) continue;
        const double hc = g.xc(comp, I[comp]) - g.xc(comp, I[comp] - 1);
        double w[3];
        for (int q = 0; q < 3; ++q) w[q] = q == comp ? hc : g.width(q, I[q]);
        const double vol = w[0] * w[1] * w[2];
        double sum = 0;
        for (int q = 0; q < dims; ++q)
          for (int side = 0; side < 2; ++side) {
            int J[3] = {i, j, k};
            J[q] += side ? 1 : -1;
            if (J[q] < 0 || J[q] >= ext[q] || !fixed(J[0], J[1], J[2])) continue;
            double xp[3], xn[3];
            position(I, xp);
            position(J, xn);
            const double gap = std::abs(xn[q] - xp[q]);
            double delta;
            if (immersed) {
              // Bisection for where the line from P (outside) to J (inside) meets the surface.
              double a = 0, b = 1;
              for (int it = 0; it < 60; ++it) {
                const double t = 0.5 * (a + b);
                const double x = xp[0] + t * (xn[0] - xp[0]), y = xp[1] + t * (xn[1] - xp[1]);
                (inside_any(c.obstacles, x, y) ? b : a) = t;
              }
              delta = std::max(0.5 * (a + b), min_fraction) * gap;
            } else if (q == comp) {
              delta = gap;  // the fixed face is on the staircase wall
            } else {
              delta = side ? g.xf(q, I[q] + 1) - g.xc(q, I[q]) : g.xc(q, I[q]) - g.xf(q, I[q]);
            }
            sum += vol / w[q] / delta;
          }
        wall(i, j, k) = sum;
      }
  return out;
}

}  // namespace gridsolve::flow
