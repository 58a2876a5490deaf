#include "gridsolve/apps/flow/flow_case.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gridsolve/core/error.hpp"
#include "gridsolve/problem/boundary.hpp"

namespace gridsolve::flow {

SideType parse_side_type(const std::string& t) {
  if (t == "wall") return SideType::wall;
  if (t == "velocity" || t == "inflow") return SideType::velocity;
  if (t == "outflow") return SideType::outflow;
  if (t == "symmetry") return SideType::symmetry;
  if (t == "periodic") return SideType::periodic;
  throw Error(fmt::format(
      "boundary type '{}' is not known; valid: wall, inflow (or velocity), outflow, symmetry, "
      "periodic",
      t));
}

std::string to_string(SideType t) {
  switch (t) {
    case SideType::wall:
      return "wall";
    case SideType::velocity:
      return "inflow";
    case SideType::outflow:
      return "outflow";
    case SideType::symmetry:
      return "symmetry";
    default:
      return "periodic";
  }
}

Convection parse_convection(const std::string& t) {
  if (t == "upwind") return Convection::upwind;
  if (t == "hybrid") return Convection::hybrid;
  if (t == "tvd" || t == "vanleer") return Convection::tvd;
  if (t == "quick") return Convection::quick;
  if (t == "central" || t == "linear") return Convection::central;
  throw Error(fmt::format(
      "convection scheme '{}' is not known; valid: upwind, hybrid, tvd, quick, central", t));
}
Coupling parse_coupling(const std::string& t) {
  if (t == "simple") return Coupling::simple;
  if (t == "simplec") return Coupling::simplec;
  if (t == "piso") return Coupling::piso;
  if (t == "projection" || t == "fractional-step") return Coupling::projection;
  throw Error(
      fmt::format("coupling '{}' is not known; valid: simple, simplec, piso, projection", t));
}
TimeScheme parse_time_scheme(const std::string& t) {
  if (t == "euler") return TimeScheme::euler;
  if (t == "bdf2") return TimeScheme::bdf2;
  if (t == "rk3") return TimeScheme::rk3;
  throw Error(
      fmt::format("time scheme '{}' is not known; valid: euler, bdf2 (piso), rk3 "
                  "(projection)",
                  t));
}
std::string to_string(Convection c) {
  switch (c) {
    case Convection::upwind:
      return "upwind";
    case Convection::hybrid:
      return "hybrid";
    case Convection::tvd:
      return "tvd";
    case Convection::quick:
      return "quick";
    case Convection::central:
      return "central";
  }
  return "unknown";
}
std::string to_string(Coupling c) {
  switch (c) {
    case Coupling::simple:
      return "simple";
    case Coupling::simplec:
      return "simplec";
    case Coupling::piso:
      return "piso";
    case Coupling::projection:
      return "projection";
  }
  return "unknown";
}
std::string to_string(TimeScheme t) {
  return t == TimeScheme::euler ? "euler" : t == TimeScheme::bdf2 ? "bdf2" : "rk3";
}

bool FlowCase::direct_pressure() const {
  return find_solver(pressure_solver).needs.constant_coefficients;
}

bool FlowCase::pressure_is_periodic_laplacian() const {
  if (coupling != Coupling::projection || !obstacles.empty()) return false;
  for (int a = 0; a < dims; ++a)
    if (!periodic(a) || spacing[std::size_t(a)].kind != AxisSpacing::Kind::uniform) return false;
  return true;
}

namespace {

using Point = std::array<double, 2>;

double cross(const Point& o, const Point& a, const Point& b) {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

// p on the closed segment ab (to round-off of the segment's length).
bool on_segment(const Point& a, const Point& b, const Point& p) {
  const double len2 = (b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]);
  if (std::abs(cross(a, b, p)) > 1e-12 * len2) return false;
  return std::min(a[0], b[0]) <= p[0] && p[0] <= std::max(a[0], b[0]) &&
         std::min(a[1], b[1]) <= p[1] && p[1] <= std::max(a[1], b[1]);
}

// Closed segments ab and cd share a point.
bool segments_meet(const Point& a, const Point& b, const Point& c, const Point& d) {
  const double d1 = cross(c, d, a), d2 = cross(c, d, b), d3 = cross(a, b, c), d4 = cross(a, b, d);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)))
    return true;
  return on_segment(c, d, a) || on_segment(c, d, b) || on_segment(a, b, c) || on_segment(a, b, d);
}

}  // namespace

ObstacleTreatment parse_obstacle_treatment(const std::string& t) {
  if (t == "immersed") return ObstacleTreatment::immersed;
  if (t == "staircase") return ObstacleTreatment::staircase;
  throw Error(fmt::format("obstacle treatment '{}' is not known; valid: immersed, staircase", t));
}

const SolverInfo& momentum_solver_row(const std::string& name) {
  const SolverInfo& row = find_solver(name);  // unknown names: the registry's hint
  if (row.needs.symmetric || row.needs.constant_coefficients)
    throw Error(
        fmt::format("momentum solver '{}' needs {}; the momentum rows are nonsymmetric "
                    "with variable coefficients (sor, rb-gs and bicgstab take them)",
                    name, row.needs.symmetric ? "a symmetric operator" : "constant coefficients"));
  return row;
}

std::string to_string(ObstacleTreatment t) {
  return t == ObstacleTreatment::immersed ? "immersed" : "staircase";
}

bool Obstacle::contains(double x, double y) const {
  if (shape == Shape::circle) {
    const double dx = x - centre[0], dy = y - centre[1];
    return dx * dx + dy * dy <= radius * radius;
  }
  if (shape == Shape::polygon) {
    // Even-odd rule: a ray toward +x crosses the outline an odd number of times.
    const Point p{x, y};
    bool inside = false;
    const std::size_t n = vertices.size();
    for (std::size_t i = 0, j = n - 1; i < n; j = i++) {
      const Point &a = vertices[i], &b = vertices[j];
      if (on_segment(a, b, p)) return true;
      if ((a[1] > y) != (b[1] > y) && x < a[0] + (y - a[1]) * (b[0] - a[0]) / (b[1] - a[1]))
        inside = !inside;
    }
    return inside;
  }
  return x >= lo[0] && x <= hi[0] && y >= lo[1] && y <= hi[1];
}

bool Obstacle::strictly_contains(double x, double y) const {
  if (shape == Shape::circle) {
    const double dx = x - centre[0], dy = y - centre[1];
    return std::sqrt(dx * dx + dy * dy) < radius * (1 - 1e-12);
  }
  if (shape == Shape::polygon) {
    const Point p{x, y};
    for (std::size_t i = 0, j = vertices.size() - 1; i < vertices.size(); j = i++)
      if (on_segment(vertices[i], vertices[j], p)) return false;
    return contains(x, y);
  }
  return x > lo[0] && x < hi[0] && y > lo[1] && y < hi[1];
}

std::string Obstacle::describe() const {
  if (shape == Shape::circle)
    return fmt::format("circle at ({}, {}) radius {}", centre[0], centre[1], radius);
  if (shape == Shape::polygon) {
    // Long outlines are named by their size and first vertex: a message stays one line.
    if (vertices.size() > 8)
      return fmt::format("polygon of {} vertices from ({}, {})", vertices.size(), vertices[0][0],
                         vertices[0][1]);
    std::string v;
    for (const Point& p : vertices)
      v += fmt::format("{}({}, {})", v.empty() ? "" : ", ", p[0], p[1]);
    return fmt::format("polygon {}", v);
  }
  return fmt::format("rectangle [{}, {}] x [{}, {}]", lo[0], hi[0], lo[1], hi[1]);
}

void FlowCase::validate() const {
  require(dims == 2 || dims == 3, fmt::format("dims is {}; valid: 2 or 3", dims));
  require(std::isfinite(nu) && nu > 0,
          fmt::format("the viscosity is {}; it must be positive (Reynolds number > 0)", nu));
  // Past this the solver's laminar, resolved-flow model means nothing (and a subnormal
  // viscosity only ends in overflow).
  require(!(u_ref > 0 && length_ref > 0) || u_ref * length_ref / nu <= 1e9,
          fmt::format("the viscosity {} makes the Reynolds number {:.3g} (u_ref {}, length_ref "
                      "{}); at most 1e9 is meaningful for a laminar solver",
                      nu, u_ref * length_ref / nu, u_ref, length_ref));
  for (int a = 0; a < dims; ++a) {
    require(cells[a] >= 4 && cells[a] <= 65536,
            fmt::format("{} cells along {}; valid: 4 to 65536", cells[a], "xyz"[a]));
    require(
        std::isfinite(lo[a]) && std::isfinite(hi[a]) && std::isfinite(hi[a] - lo[a]),
        fmt::format("the domain along {} is [{}, {}]; give finite ends", "xyz"[a], lo[a], hi[a]));
    require(hi[a] > lo[a], fmt::format("the domain along {} is [{}, {}]; the upper end must be "
                                       "above the lower",
                                       "xyz"[a], lo[a], hi[a]));
    // The coefficients hold 1/h^2 and h^2 terms: far outside these lengths they under- or
    // overflow, and the run would end "diverged" for what is bad input.
    const double extent = hi[a] - lo[a];
    require(extent >= 1e-100 && extent <= 1e100,
            fmt::format("the domain along {} is {} long; give a length from 1e-100 to 1e100 "
                        "(scale the problem)",
                        "xyz"[a], extent));
  }
  bool any_inflow = false;
  for (int s = 0; s < 2 * dims; ++s) {
    const SideCondition& c = sides[std::size_t(s)];
    const int axis = s / 2;
    if (c.type == SideType::periodic) {
      require(sides[std::size_t(s ^ 1)].type == SideType::periodic,
              fmt::format("side {} is periodic but its opposite side {} is not; periodic sides "
                          "come in pairs",
                          face_name(s), face_name(s ^ 1)));
    }
    for (int q = 0; q < 3; ++q)
      require(std::abs(c.velocity[std::size_t(q)]) < k_largest_speed,
              fmt::format("side {}: wall velocity component {} is {}; give a finite speed "
                          "below 1e100",
                          face_name(s), "uvw"[q], c.velocity[std::size_t(q)]));
    if (c.type == SideType::wall)
      require(c.velocity[std::size_t(axis)] == 0,
              fmt::format("side {}: a wall cannot move through itself (normal velocity {}); give "
                          "only tangential components",
                          face_name(s), c.velocity[std::size_t(axis)]));
    any_inflow |= c.type == SideType::velocity;
  }
  bool all_velocity = true;
  for (int s = 0; s < 2 * dims; ++s)
    all_velocity &= sides[std::size_t(s)].type == SideType::velocity;
  require(!any_inflow || has_outflow() || all_velocity,
          "an inflow side needs an outflow side somewhere (mass must leave the domain); set one "
          "side's type to outflow");
  require(benchmark != Benchmark::dfg || !obstacles.empty(),
          "benchmark dfg measures forces on an obstacle; give one ([[obstacle]])");
  for (const Obstacle& o : obstacles) {
    if (o.shape == Obstacle::Shape::circle) {
      require(o.radius > 0, fmt::format("obstacle {}: the radius must be positive", o.describe()));
      require(o.centre[0] - o.radius > lo[0] && o.centre[0] + o.radius < hi[0] &&
                  o.centre[1] - o.radius > lo[1] && o.centre[1] + o.radius < hi[1],
              fmt::format("obstacle {} is not inside the domain [{}, {}] x [{}, {}]", o.describe(),
                          lo[0], hi[0], lo[1], hi[1]));
    } else if (o.shape == Obstacle::Shape::polygon) {
      const std::size_t n = o.vertices.size();
      require(
          n >= 3 && n <= 10000,
          fmt::format("obstacle {}: a polygon needs 3 to 10000 vertices, got {}", o.describe(), n));
      // The checks below run over every vertex and every pair of edges: their messages
      // are built only when one fails (formatting each would make validation cubic).
      double area = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const Point &a = o.vertices[i], &b = o.vertices[(i + 1) % n];
        if (!(std::isfinite(a[0]) && std::isfinite(a[1])))
          throw Error(fmt::format("obstacle {}: vertex {} is not a finite point", o.describe(), i));
        if (!(a[0] > lo[0] && a[0] < hi[0] && a[1] > lo[1] && a[1] < hi[1]))
          throw Error(
              fmt::format("obstacle {}: vertex ({}, {}) is not inside the domain [{}, {}] "
                          "x [{}, {}]",
                          o.describe(), a[0], a[1], lo[0], hi[0], lo[1], hi[1]));
        area += a[0] * b[1] - b[0] * a[1];
      }
      require(std::abs(area) > 0,
              fmt::format("obstacle {}: the polygon encloses no area", o.describe()));
      // Simple: edges meet only their neighbours, at the shared vertex.
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) {
          const bool adjacent = j == i + 1 || (i == 0 && j == n - 1);
          const Point &a = o.vertices[i], &b = o.vertices[(i + 1) % n];
          const Point &c = o.vertices[j], &d = o.vertices[(j + 1) % n];
          bool meet;
          if (!adjacent) {
            meet = segments_meet(a, b, c, d);
          } else {
            // Neighbours share one vertex; they must not overlap beyond it.
            const Point& shared = j == i + 1 ? b : a;
            const Point& far_i = j == i + 1 ? a : b;
            const Point& far_j = j == i + 1 ? d : c;
            meet = on_segment(shared, far_i, far_j) || on_segment(shared, far_j, far_i);
          }
          if (meet)
            throw Error(
                fmt::format("obstacle {}: edges {} and {} cross or overlap; give the "
                            "vertices of a simple polygon in order around it",
                            o.describe(), i, j));
        }
    } else {
      require(o.hi[0] > o.lo[0] && o.hi[1] > o.lo[1],
              fmt::format("obstacle {}: empty rectangle", o.describe()));
      require(o.lo[0] > lo[0] && o.hi[0] < hi[0] && o.lo[1] > lo[1] && o.hi[1] < hi[1],
              fmt::format("obstacle {} is not inside the domain [{}, {}] x [{}, {}]", o.describe(),
                          lo[0], hi[0], lo[1], hi[1]));
    }
  }
  require(relax_u > 0 && relax_u <= 1, fmt::format("relax_u is {}; valid: (0, 1]", relax_u));
  require(relax_p > 0 && relax_p <= 1, fmt::format("relax_p is {}; valid: (0, 1]", relax_p));
  require(max_iterations >= 1, "max_iterations must be at least 1");
  require(std::isfinite(steady_tolerance) && steady_tolerance > 0,
          "the steady tolerance must be a positive number");
  if (!steady()) {
    require(std::isfinite(t_end) && t_end > 0,
            fmt::format("t_end is {}; it must be positive", t_end));
    require(std::isfinite(cfl) && cfl >= 0,
            fmt::format("the CFL number is {}; it must be positive", cfl));
    require(std::isfinite(dt), fmt::format("dt is {}; give a finite step", dt));
    require(cfl > 0 || dt > 0, "give a CFL number or a fixed time step dt");
    require(std::isfinite(inflow_period) && inflow_period >= 0,
            fmt::format("inflow_period is {}; give a positive period (or 0 for a steady inflow)",
                        inflow_period));
    // A run that could not end: the fixed step, or the step a CFL number allows at the
    // reference velocity on the mean cell width (stretched grids take more), against t_end.
    double h_min = 1e300;
    for (int a = 0; a < dims; ++a) h_min = std::min(h_min, (hi[a] - lo[a]) / cells[a]);
    const double step = dt > 0 ? dt : cfl * h_min / u_ref;
    require(t_end / step < 1e9,
            fmt::format("t_end {} in steps of about {:.3g} would take {:.3g} steps (more than "
                        "1e9): raise the time step or the CFL number, or shorten t_end",
                        t_end, step, t_end / step));
    require(cfl <= max_cfl,
            fmt::format("CFL {} is above {}, the largest PISO with lagged convection allows here",
                        cfl, max_cfl));
    require(dt >= 0, fmt::format("dt is {}; it must be positive (or 0 for CFL control)", dt));
    require(correctors >= 1 && correctors <= 4,
            fmt::format("{} pressure correctors; valid: 1 to 4 (PISO uses 2)", correctors));
    const bool rk = time_scheme == TimeScheme::rk3, projection = coupling == Coupling::projection;
    require(rk == projection,
            projection ? fmt::format("the projection coupling steps with rk3, not {}",
                                     to_string(time_scheme))
                       : "the rk3 time scheme goes with the projection coupling (piso steps with "
                         "euler or bdf2)");
  }
  if (direct_pressure())
    require(pressure_is_periodic_laplacian(),
            fmt::format("pressure_solver {} takes the projection coupling on a uniform grid with "
                        "every side periodic and no obstacle (there the pressure equation is the "
                        "plain Laplacian); use mg",
                        pressure_solver));
  momentum_solver_row(momentum_solver);
  require(momentum_sweeps >= 1 && momentum_sweeps <= 1000,
          fmt::format("momentum_sweeps is {}; valid: 1 to 1000", momentum_sweeps));
  // -1 is the unset default (predictor_omega() chooses).
  require(momentum_omega == -1 || (momentum_omega > 0 && momentum_omega < 2),
          fmt::format("momentum_omega is {}; valid: (0, 2)", momentum_omega));
  // -1 is the unset default (predictor_tolerance() chooses); a user's value is in [0, 1).
  require(momentum_tolerance == -1 || (momentum_tolerance >= 0 && momentum_tolerance < 1),
          fmt::format("momentum_tolerance is {}; valid: 0 (a fixed count of sweeps) up to "
                      "below 1",
                      momentum_tolerance));
  require(pressure_tolerance > 0 && pressure_tolerance < 1,
          fmt::format("pressure tolerance {}; valid: (0, 1)", pressure_tolerance));
  require(check_every >= 1, "check_every must be at least 1");
  require(std::isfinite(u_ref) && std::isfinite(length_ref) && u_ref > 0 && length_ref > 0,
          "the reference velocity and length must be positive");
  if (has_probes)
    for (const auto* probe : {&probe_a, &probe_b}) {
      const auto& q = *probe;
      std::string where =
          fmt::format("({}, {}{})", q[0], q[1], dims == 3 ? fmt::format(", {}", q[2]) : "");
      bool inside = true;
      for (int a = 0; a < dims; ++a)
        inside &= std::isfinite(q[std::size_t(a)]) && q[std::size_t(a)] >= lo[a] &&
                  q[std::size_t(a)] <= hi[a];
      require(inside, fmt::format("the pressure probe {} is not inside the domain", where));
      // A probe on a body's surface is measured there (extrapolated); inside it, never.
      for (const Obstacle& o : obstacles)
        require(!o.strictly_contains(q[0], q[1]),
                fmt::format("the pressure probe {} is inside obstacle {}", where, o.describe()));
    }
}

std::string FlowCase::describe() const {
  std::string s = fmt::format("{}: nu {}, {} with {} convection", name, nu, to_string(coupling),
                              to_string(convection));
  if (!steady()) s += fmt::format(", {} in time to t = {}", to_string(time_scheme), t_end);
  return s;
}

FlowCase cavity_case(double re, int n) {
  require(std::isfinite(re) && re > 0,
          fmt::format("the Reynolds number is {}; it must be positive", re));
  FlowCase c;
  c.name = fmt::format("cavity Re {}", re);
  c.benchmark = Benchmark::cavity;
  c.cells = {n, n, 1};
  c.nu = 1.0 / re;
  c.sides[3].velocity = {1, 0, 0};  // the lid
  c.coupling = Coupling::simplec;
  c.relax_u = 0.8;
  c.relax_p = 1.0;
  c.pressure_tolerance = 1e-3;
  c.steady_tolerance = 1e-7;
  c.max_iterations = 50000;
  c.check_every = 50;
  return c;
}

FlowCase dfg_case(const std::string& which, int cpd) {
  require(which == "dfg-2d-1" || which == "dfg-2d-2" || which == "dfg-2d-3" || which == "dfg-3d-1z",
          fmt::format("channel case '{}' is not known; valid: dfg-2d-1, dfg-2d-2, dfg-2d-3, "
                      "dfg-3d-1z",
                      which));
  require(cpd >= 4 && cpd <= 4096, fmt::format("{} cells per diameter; valid: 4 to 4096", cpd));
  FlowCase c;
  c.name = which;
  c.benchmark = Benchmark::dfg;
  const bool three = which == "dfg-3d-1z";
  // 3D-1Z: the channel 2.5 x 0.41 x 0.41, the cylinder across it (spanning z) at
  // (0.5, 0.2), the inflow 16 U_m y z (H - y)(H - z) / H^4 with U_m = 0.45 (mean 0.2).
  const double centre_x = three ? 0.5 : 0.2;
  c.hi = {three ? 2.5 : 2.2, 0.41, three ? 0.41 : 1};
  // x: a band of uniform cells, `cpd` per diameter, around the cylinder (and, for
  // shedding, its near wake); downstream the cells grow geometrically toward the outflow
  // (about 1.03 per cell at 16 per diameter; refining the band refines the whole axis
  // alike). y: the same width everywhere (the channel's walls shape the drag as much as
  // the cylinder does), the band [0.1, 0.3] keeping the cells symmetric about the
  // cylinder, which the small lift needs. z (3D): uniform, the width of the band's.
  const double h = 0.1 / cpd;
  const bool steady = which == "dfg-2d-1" || three;
  // (from a diameter before the cylinder's centre to 1.5 after it, 5 for shedding)
  const double x_band_lo = three ? 0.4 : 0.1, x_band_hi = three ? 0.65 : steady ? 0.35 : 0.7;
  c.spacing[0] = AxisSpacing::parse(fmt::format("band:{}:{}:{}", x_band_lo, x_band_hi, h));
  c.spacing[1] = AxisSpacing::parse(fmt::format("band:0.1:0.3:{}", h));
  // (3D: the longer inlet, 0.4 before the band, takes two more diameters' cells)
  c.cells = {int(std::lround((x_band_hi - x_band_lo) / h)) + (three ? 7 : 5) * cpd,
             int(std::lround(0.41 / h)), three ? int(std::lround(0.41 / h)) : 1};
  if (three) c.dims = 3;
  c.nu = 1e-3;
  const double umax = which == "dfg-2d-1" ? 0.3 : three ? 0.45 : 1.5;
  c.sides[0].type = SideType::velocity;
  if (three)
    c.sides[0].profile[0] = Expression::from(
        [umax](double, double y, double z) {
          return 16 * umax * y * z * (0.41 - y) * (0.41 - z) / (0.41 * 0.41 * 0.41 * 0.41);
        },
        fmt::format("16 * {} * y * z * (0.41 - y) * (0.41 - z) / 0.41^4", umax));
  else
    c.sides[0].profile[0] = Expression::from(
        [umax](double, double y, double) { return 4 * umax * y * (0.41 - y) / (0.41 * 0.41); },
        fmt::format("4 * {} * y * (0.41 - y) / 0.41^2", umax));
  c.sides[1].type = SideType::outflow;
  Obstacle cyl;
  cyl.centre = {centre_x, 0.2};
  cyl.radius = 0.05;
  c.obstacles.push_back(cyl);
  c.u_ref = three ? 4.0 * umax / 9.0 : 2.0 * umax / 3.0;
  c.length_ref = 0.1;
  c.has_probes = true;
  // The cylinder's front and back points (in 3D at mid-height).
  c.probe_a = three ? std::array<double, 3>{0.45, 0.2, 0.205} : std::array<double, 3>{0.15, 0.2, 0};
  c.probe_b = three ? std::array<double, 3>{0.55, 0.2, 0.205} : std::array<double, 3>{0.25, 0.2, 0};
  if (steady) {
    c.coupling = Coupling::simplec;
    c.relax_u = 0.8;
    c.relax_p = 1.0;
    c.pressure_tolerance = 1e-3;
    c.steady_tolerance = 1e-8;
    c.max_iterations = 50000;
    c.check_every = 50;
  } else {
    c.coupling = Coupling::piso;
    c.cfl = 0.5;
    c.t_end = which == "dfg-2d-2" ? 12.0 : 8.0;
    if (which == "dfg-2d-3") c.inflow_period = 8.0;
    c.pressure_tolerance = 1e-7;
  }
  return c;
}

}  // namespace gridsolve::flow
