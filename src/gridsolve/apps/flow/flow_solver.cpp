#include "gridsolve/apps/flow/flow_solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numbers>

#include "gridsolve/apps/flow/flow_obstacles.hpp"
#include "gridsolve/problem/boundary.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve::flow {

namespace {

// Side types as plain integers for loop bodies.
enum : int { k_wall = 0, k_velocity = 1, k_outflow = 2, k_symmetry = 3, k_periodic = 4 };

int side_code(SideType t) {
  switch (t) {
    case SideType::wall:
      return k_wall;
    case SideType::velocity:
      return k_velocity;
    case SideType::outflow:
      return k_outflow;
    case SideType::symmetry:
      return k_symmetry;
    default:
      return k_periodic;
  }
}

template <class T>
GRIDSOLVE_HD T at(const FieldView<T>& f, const int* I) {
  return f(I[0], I[1], I[2]);
}

GRIDSOLVE_HD inline double pos(double x) {
  return x > 0 ? x : 0.0;
}

// Two sums reduced in one pass.
struct SumCount {
  double s = 0, q = 0;
  GRIDSOLVE_HD SumCount operator+(const SumCount& o) const { return {s + o.s, q + o.q}; }
};
struct F2 {
  double x = 0, y = 0;
  GRIDSOLVE_HD F2 operator+(const F2& o) const { return {x + o.x, y + o.y}; }
};

// A value a case's formula gave (a boundary, an initial field): beyond k_largest_speed,
// or not a number, it is bad input named by what() and the point. what() runs only on
// failure: the check sits in loops over every face.
template <class What>
void require_usable(double value, const What& what, double x, double y, double z) {
  if (!(std::abs(value) < k_largest_speed))
    throw Error(
        fmt::format("{} is {} at ({}, {}, {}); its formula must be finite (below 1e100) "
                    "there",
                    what(), value, x, y, z));
}

// Whether velocity face F of a component is free (an unknown, not held by a body): the
// pressure cells' mask and the fluid's connectivity both read the faces this way.
template <class T>
bool face_is_free(const StencilOperator<T>& m, const Field<std::uint8_t>& fixed, const int F[3]) {
  return m.active.contains(F[0], F[1], F[2]) && !fixed.cview()(F[0], F[1], F[2]);
}

// The momentum equation of velocity component c at one of its faces, finite volumes on
// the face's staggered cell:  a_P u_P = sum a_nb u_nb + b0 (+ pressure force).
// Convection: upwind or hybrid coefficients; tvd, quick and central add the difference
// between their face value and upwind's as a source (deferred correction): van Leer's
// limited one, QUICK's, or linear interpolation's. Diffusion: central. Walls and inflow sides
// fold their value into a_P and b0 (the wall half a cell from the face), zero-gradient
// sides drop the coupling; boundary faces of the normal axis are known values.
template <class T>
struct MomentumAssembly {
  MacGeometry g;
  int c = 0, scheme = 0;
  int side_type[6] = {};
  bool periodic[3] = {false, false, false};
  // Transient: tcoef u^{n+1} - (c_n u^n - c_nm1 u^{n-1}) is the time derivative.
  T nu = 0, tcoef = 0, relax = 1, factor = 1, c_n = 0, c_nm1 = 0;
  bool transient = false, simplec = false;
  FieldView<const T> u[3], open[3], un, unm1, wall, body;
  FieldView<const std::uint8_t> fmask;
  Box ext;  // indices of component c that exist, ghosts included
  FieldView<T> ap, a[6], b0, d;

  GRIDSOLVE_HD void operator()(int i, int j, int k) const {
    const int I[3] = {i, j, k};
    if (fmask(i, j, k)) {
      ap(i, j, k) = 1;
      for (int f = 0; f < 2 * g.dims; ++f) a[f](i, j, k) = 0;
      b0(i, j, k) = 0;
      d(i, j, k) = 0;
      return;
    }
    const double hc = g.xc(c, I[c]) - g.xc(c, I[c] - 1);
    double w[3];
    for (int q = 0; q < 3; ++q) w[q] = q == c ? hc : g.width(q, I[q]);
    const double vol = w[0] * w[1] * w[2];
    const double uP = u[c](i, j, k);
    // Links to faces a body fixes carry no convective flux (the wall's velocity is zero)
    // and a diffusive one to the wall at its distance along the link (`body`).
    double sum_a = 0, extra = double(nu) * double(body(i, j, k)), b = 0, netF = 0;
    double coef[6] = {0, 0, 0, 0, 0, 0};
    for (int q = 0; q < g.dims; ++q)
      for (int side = 0; side < 2; ++side) {
        const int s = side ? 1 : -1;
        int J[3] = {i, j, k};
        J[q] += s;
        const double area = vol / w[q];
        double F, D;
        if (q == c) {
          F = s * 0.5 * (double(open[c](i, j, k)) * uP + double(at(open[c], J) * at(u[c], J))) *
              area;
          D = nu * area / g.width(c, side ? I[c] : I[c] - 1);
        } else {
          int K0[3] = {i, j, k};
          K0[q] = I[q] + side;
          K0[c] = I[c] - 1;
          int K1[3] = {K0[0], K0[1], K0[2]};
          K1[c] = I[c];
          F = s *
              (double(at(open[q], K0) * at(u[q], K0)) * 0.5 * g.width(c, I[c] - 1) +
               double(at(open[q], K1) * at(u[q], K1)) * 0.5 * g.width(c, I[c])) *
              (area / hc);
          const double gap = g.xc(q, J[q]) - g.xc(q, I[q]);
          D = nu * area / (gap > 0 ? gap : -gap);
        }
        const bool outside = q != c && (J[q] < 0 || J[q] >= g.n[q]);
        if (outside) {
          const int st = side_type[2 * q + side];
          if (st == k_wall || st == k_velocity) {
            const double wv = double(at(wall, J)) * (st == k_velocity ? double(factor) : 1.0);
            extra += 2 * D;
            b += 2 * D * wv;
            if (F >= 0) {
              netF += F;
              b -= F * (wv - uP);
            } else {
              b -= F * wv;
            }
            continue;
          }
          if (st != k_periodic) {  // zero gradient: the face carries u_P out
            netF += F;
            continue;
          }
        }
        if (at(fmask, J)) {  // a face the body holds: its wall term is in `extra`
          continue;
        }
        double acoef;
        if (scheme == 1) {
          acoef = -F > D - 0.5 * F ? -F : D - 0.5 * F;
          acoef = acoef > 0 ? acoef : 0;
        } else {
          acoef = D + pos(-F);
        }
        coef[2 * q + side] = acoef;
        sum_a += acoef;
        netF += F;
        if (scheme >= 2) {
          int Cn[3] = {i, j, k}, Dn[3] = {J[0], J[1], J[2]}, U[3] = {i, j, k};
          if (F > 0) {
            U[q] = I[q] - s;
          } else {
            Cn[q] = J[q], Dn[q] = I[q], U[q] = J[q] + s;
          }
          // Across a periodic side the far upwind value is the other end's (period n).
          if (periodic[q] && U[q] < ext.lo[q]) U[q] += g.n[q];
          if (periodic[q] && U[q] > ext.hi[q]) U[q] -= g.n[q];
          const bool far = U[q] >= ext.lo[q] && U[q] <= ext.hi[q];
          const double pc = at(u[c], Cn), pd = at(u[c], Dn), den = pd - pc;
          // The face value minus upwind's. QUICK goes 3/8 of the way to the downwind
          // value plus 1/8 of the upwind slope, central half way: neither is bounded.
          // Without a far upwind value van Leer stays upwind and QUICK turns central.
          double toward = 0;
          if (scheme == 2) {
            if (far && (den > 1e-300 || den < -1e-300)) {
              const double r = (pc - at(u[c], U)) / den, ar = r > 0 ? r : -r;
              toward = 0.5 * (r + ar) / (1 + ar) * den;
            }
          } else if (scheme == 3 && far) {
            toward = (3 * den + (pc - at(u[c], U))) / 8;
          } else {
            toward = 0.5 * den;
          }
          b -= F * toward;
        }
      }
    double aP = sum_a + netF + extra;
    if (transient) {
      aP += double(tcoef) * vol;
      b += vol * (double(c_n) * double(un(i, j, k)) - double(c_nm1) * double(unm1(i, j, k)));
    }
    const double aPr = aP / double(relax);
    b += (aPr - aP) * uP;
    ap(i, j, k) = T(aPr);
    for (int f = 0; f < 2 * g.dims; ++f) a[f](i, j, k) = T(coef[f]);
    b0(i, j, k) = T(b);
    const double area_c = vol / hc;
    double denom = simplec ? aPr - sum_a : aPr;
    if (denom < 1e-3 * aPr) denom = 1e-3 * aPr;
    d(i, j, k) = T(area_c / denom);
  }
};

}  // namespace

template <class T>
FlowSolver<T>::~FlowSolver() = default;

template <class T>
FlowSolver<T>::FlowSolver(const FlowCase& c, Device d) : case_(c), device_(d) {
  case_.validate();
  grid_ = MacGrid(c.dims, c.cells, c.lo, c.hi, c.spacing, d);
  require_resolved(c.obstacles, grid_, c.obstacle_treatment);
  const int dims = c.dims;
  const auto& n = grid_.cells();
  const MacGeometry hg = grid_.host_geometry();
  for (int q = 0; q < dims; ++q) periodic_[std::size_t(q)] = c.periodic(q);

  // Solid cells: centres inside an obstacle (the staircase's body; with the immersed
  // boundary they only tell outputs where the body is).
  Field<std::uint8_t> solid_host = make_staggered<std::uint8_t>(n, dims, -1, Device::cpu);
  {
    const FieldView<std::uint8_t> sv = solid_host.view();
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i)
        if (inside_any(c.obstacles, hg.xc(0, i), hg.xc(1, j))) sv(i, j, 0) = 1;
  }
  std::array<Field<std::uint8_t>, 3> fixed_host;
  double net_inflow = 0, total_inflow = 0;

  for (int comp = 0; comp < dims; ++comp) {
    const auto ext = face_extent(n, comp);
    for (auto* f : {&u_, &u_n_, &u_nm1_, &u_conv_, &hbya_, &b0_, &d_, &wall_, &body_, &open_})
      (*f)[std::size_t(comp)] = make_staggered<T>(n, dims, comp, d);
    StencilOperator<T>& m = mom_[std::size_t(comp)];
    m.grid.dims = dims;
    m.grid.n = ext;
    m.device = d;
    m.uniform = false;
    Box active{{0, 0, 0}, {ext[0] - 1, ext[1] - 1, ext[2] - 1}};
    // Periodic: face 0 is an unknown and face n its image (a copy, not an unknown).
    active.lo[comp] = periodic_[std::size_t(comp)] ? 0 : 1;
    active.hi[comp] = ext[comp] - 2;
    m.active = active;
    // The project's periodic stencil: one period of unknowns per periodic axis, the
    // operator's grid one node longer there (its image), so that the Krylov momentum
    // solver and the residual norms read across the joint as the sweeps do.
    for (int q = 0; q < dims; ++q)
      if (periodic_[std::size_t(q)]) {
        m.periodic |= std::uint8_t(1u << q);
        m.grid.n[q] = n[q] + 1;
      }
    for (auto* f : {&m.ap, &m.aw, &m.ae, &m.as, &m.an, &m.rhs})
      *f = make_staggered<T>(n, dims, comp, d);
    if (dims == 3)
      m.ab = make_staggered<T>(n, dims, comp, d), m.at = make_staggered<T>(n, dims, comp, d);
    // Faces a body holds at zero, and the wall terms of the faces beside them.
    BodyFaces bf = body_faces(c, grid_, comp);
    const FieldView<const std::uint8_t> mv = bf.fixed.cview();
    std::int64_t unknowns = 0;
    for (int k = 0; k < ext[2]; ++k)
      for (int j = 0; j < ext[1]; ++j)
        for (int i = 0; i < ext[0]; ++i)
          if (!mv(i, j, k) && active.contains(i, j, k)) ++unknowns;
    // Periodic ghosts of the mask: the assembly asks whether a neighbour across the side
    // is held.
    for (int a = 0; a < dims; ++a) {
      if (!periodic_[std::size_t(a)]) continue;
      const FieldView<std::uint8_t> fw = bf.fixed.view();
      Box all{{-1, -1, dims == 3 ? -1 : 0}, {ext[0], ext[1], dims == 3 ? ext[2] : 0}};
      for (int k = all.lo[2]; k <= all.hi[2]; ++k)
        for (int j = all.lo[1]; j <= all.hi[1]; ++j)
          for (int i = all.lo[0]; i <= all.hi[0]; ++i) {
            int I[3] = {i, j, k};
            if (I[a] >= 0 && I[a] < ext[a]) continue;
            I[a] = I[a] < 0 ? I[a] + n[a] : I[a] - n[a];
            fw(i, j, k) = fw(I[0], I[1], I[2]);
          }
    }
    body_[std::size_t(comp)].copy_from(bf.wall);
    open_[std::size_t(comp)].copy_from(bf.open);
    fixed_host[std::size_t(comp)] = std::move(bf.fixed);
    const Field<std::uint8_t>& mask = fixed_host[std::size_t(comp)];
    m.mask = mask.copy_to(d);
    m.unknowns = unknowns;

    // Boundary values: the normal component on the boundary faces, the tangential ones
    // in the ghost layer (where the wall value sits for the fold).
    Field<T> wall = make_staggered<T>(n, dims, comp, Device::cpu);
    const FieldView<T> wv = wall.view();
    for (int s = 0; s < 2 * dims; ++s) {
      const SideCondition& sc = c.sides[std::size_t(s)];
      if (sc.type != SideType::wall && sc.type != SideType::velocity) continue;
      const int axis = s / 2;
      const bool hi = s % 2 == 1;
      Box slab{{0, 0, 0}, {ext[0] - 1, ext[1] - 1, ext[2] - 1}};
      const int idx = axis == comp ? (hi ? ext[axis] - 1 : 0) : (hi ? n[axis] : -1);
      slab.lo[axis] = slab.hi[axis] = idx;
      for (int k = slab.lo[2]; k <= slab.hi[2]; ++k)
        for (int j = slab.lo[1]; j <= slab.hi[1]; ++j)
          for (int i = slab.lo[0]; i <= slab.hi[0]; ++i) {
            const int I[3] = {i, j, k};
            double x[3];
            for (int a = 0; a < 3; ++a)
              x[a] = a == comp ? hg.xf(a, I[a]) : (a < dims ? hg.xc(a, I[a]) : 0.0);
            x[axis] = hi ? grid_.hi(axis) : grid_.lo(axis);
            double value;
            if (sc.type == SideType::wall)
              value = axis == comp ? 0.0 : sc.velocity[std::size_t(comp)];
            else
              value = sc.profile[std::size_t(comp)](x[0], x[1], x[2]);
            require_usable(
                value,
                [&] { return fmt::format("side {}: the inflow's {}", face_name(s), "uvw"[comp]); },
                x[0], x[1], x[2]);
            wv(i, j, k) = T(value);
            // Net volume flux through the sides (inward positive), for the check below.
            if (axis == comp) {
              double area = 1;
              for (int q = 0; q < dims; ++q)
                if (q != comp) area *= hg.width(q, I[q]);
              net_inflow += (hi ? -value : value) * area;
              total_inflow += std::abs(value) * area;
            }
          }
    }
    wall_[std::size_t(comp)].copy_from(wall);
  }
  // Without an outflow nothing can carry away what the inflows bring: their net flux must
  // vanish, or the pressure equation has no solution (the run would report divergence).
  if (!c.has_outflow() && std::abs(net_inflow) > 1e-9 * total_inflow)
    throw Error(
        fmt::format("the inflow sides bring a net volume flux of {:.6g} into a domain "
                    "with no outflow side; make their fluxes cancel, or set a side's "
                    "type to outflow",
                    net_inflow));

  // Pressure: cell unknowns; solid cells and cells left without a free face are fixed.
  p_ = make_staggered<T>(n, dims, -1, d);
  pop_.grid.dims = dims;
  pop_.grid.n = n;
  pop_.device = d;
  pop_.uniform = false;
  pop_.active = Box{{0, 0, 0}, {n[0] - 1, n[1] - 1, n[2] - 1}};
  // Periodic axes: the project's periodic stencil (StencilView::periodic) with the
  // cells 0 .. n - 1 as one period; its solvers treat the operator's grid as nodes, the
  // one past the period (the ghost cell n) being the image of cell 0.
  for (int q = 0; q < dims; ++q)
    if (periodic_[std::size_t(q)]) {
      pop_.periodic |= std::uint8_t(1u << q);
      pop_.grid.n[q] = n[q] + 1;
    }
  for (auto* f : {&pop_.ap, &pop_.aw, &pop_.ae, &pop_.as, &pop_.an, &pop_.rhs})
    *f = make_staggered<T>(n, dims, -1, d);
  if (dims == 3)
    pop_.ab = make_staggered<T>(n, dims, -1, d), pop_.at = make_staggered<T>(n, dims, -1, d);
  Field<std::uint8_t> pmask = make_staggered<std::uint8_t>(n, dims, -1, Device::cpu);
  std::int64_t fluid = 0;
  {
    const FieldView<std::uint8_t> pm = pmask.view();
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i) {
          bool free_face = false;
          for (int q = 0; q < dims; ++q)
            for (int side = 0; side < 2; ++side) {
              int F[3] = {i, j, k};
              F[q] += side;
              // On a periodic axis the image face n is face 0, the unknown.
              if (periodic_[std::size_t(q)] && F[q] >= n[q]) F[q] -= n[q];
              if (face_is_free(mom_[std::size_t(q)], fixed_host[std::size_t(q)], F))
                free_face = true;
            }
          pm(i, j, k) = free_face ? 0 : 1;
          if (free_face) ++fluid;
        }
  }
  require(fluid > 0, "the obstacles leave no fluid cell");
  require_connected_fluid(pmask, fixed_host);
  pop_.mask = pmask.copy_to(d);
  pop_.unknowns = fluid;
  pop_.singular = true;
  solid_ = solid_host.copy_to(d);
  pressure_solver_ = make_solver<T>(c.pressure_solver);
  apply_boundaries(c.inflow_period > 0 ? 0.0 : 1.0);
  inflow_factor_ = c.inflow_period > 0 ? 0.0 : 1.0;
}

// The fluid must be one region: where obstacles wall off a pocket (or cut a channel in
// two) the pressure equation splits into separate singular blocks, and the run would only
// report divergence. A flood fill over the fluid cells through the free faces.
template <class T>
void FlowSolver<T>::require_connected_fluid(const Field<std::uint8_t>& pmask,
                                            const std::array<Field<std::uint8_t>, 3>& fixed) const {
  const auto& n = grid_.cells();
  const int dims = case_.dims;
  const FieldView<const std::uint8_t> pm = pmask.cview();
  auto index = [&](int i, int j, int k) {
    return (std::size_t(k) * std::size_t(n[1]) + std::size_t(j)) * std::size_t(n[0]) +
           std::size_t(i);
  };
  const std::size_t cells = std::size_t(n[0]) * std::size_t(n[1]) * std::size_t(n[2]);
  std::vector<std::uint8_t> seen(cells, 0);
  std::vector<std::array<int, 3>> stack;
  int regions = 0;
  std::array<int, 3> second{};
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        if (pm(i, j, k) || seen[index(i, j, k)]) continue;
        if (++regions == 2) second = {i, j, k};
        seen[index(i, j, k)] = 1;
        stack.push_back({i, j, k});
        while (!stack.empty()) {
          const std::array<int, 3> c = stack.back();
          stack.pop_back();
          for (int q = 0; q < dims; ++q)
            for (int side = 0; side < 2; ++side) {
              // The face between c and its neighbour along q (face index = the higher cell).
              int F[3] = {c[0], c[1], c[2]};
              F[q] += side;
              int N[3] = {c[0], c[1], c[2]};
              N[q] += side ? 1 : -1;
              if (periodic_[std::size_t(q)]) {
                if (F[q] >= n[q]) F[q] -= n[q];
                N[q] = (N[q] + n[q]) % n[q];
              } else if (N[q] < 0 || N[q] >= n[q]) {
                continue;
              }
              if (!face_is_free(mom_[std::size_t(q)], fixed[std::size_t(q)], F)) continue;
              if (pm(N[0], N[1], N[2]) || seen[index(N[0], N[1], N[2])]) continue;
              seen[index(N[0], N[1], N[2])] = 1;
              stack.push_back({N[0], N[1], N[2]});
            }
        }
      }
  if (regions > 1) {
    const MacGeometry g = grid_.host_geometry();
    throw Error(fmt::format(
        "the obstacles split the fluid into {} separate regions (a second one holds the cell at "
        "({:.4g}, {:.4g})): each region's pressure would be undetermined; join them or fill the "
        "enclosed ones",
        regions, g.xc(0, second[0]), g.xc(1, second[1])));
  }
}

template <class T>
void FlowSolver<T>::set_velocity(int comp, const std::function<double(double, double, double)>& f) {
  const auto ext = face_extent(grid_.cells(), comp);
  Field<T> host = make_staggered<T>(grid_.cells(), case_.dims, comp, Device::cpu);
  const FieldView<T> v = host.view();
  const MacGeometry g = grid_.host_geometry();
  for (int k = 0; k < ext[2]; ++k)
    for (int j = 0; j < ext[1]; ++j)
      for (int i = 0; i < ext[0]; ++i) {
        const int I[3] = {i, j, k};
        double x[3];
        for (int a = 0; a < 3; ++a)
          x[a] = a == comp ? g.xf(a, I[a]) : (a < case_.dims ? g.xc(a, I[a]) : 0.0);
        const double value = f(x[0], x[1], x[2]);
        require_usable(
            value, [&] { return fmt::format("the initial {}", "uvw"[comp]); }, x[0], x[1], x[2]);
        v(i, j, k) = T(value);
      }
  u_[std::size_t(comp)].copy_from(host);
  apply_boundaries(inflow_factor_);
}

template <class T>
void FlowSolver<T>::set_pressure(const std::function<double(double, double, double)>& f) {
  const auto& n = grid_.cells();
  Field<T> host = make_staggered<T>(n, case_.dims, -1, Device::cpu);
  const FieldView<T> v = host.view();
  const MacGeometry g = grid_.host_geometry();
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        const double x = g.xc(0, i), y = g.xc(1, j), z = case_.dims == 3 ? g.xc(2, k) : 0.0;
        const double value = f(x, y, z);
        require_usable(
            value, [] { return "the initial p"; }, x, y, z);
        v(i, j, k) = T(value);
      }
  p_.copy_from(host);
}

// Boundary faces of the normal axis (wall and inflow values, outflow extrapolated and
// scaled to the inflow), then the ghost layers axis by axis (corners included).
template <class T>
void FlowSolver<T>::apply_boundaries(double factor, bool set_faces) {
  const int dims = case_.dims;
  const auto& n = grid_.cells();
  const Device dev = device_;
  double inflow = 0, outflow = 0;
  const MacGeometry g = grid_.geometry();
  const bool has_outflow = case_.has_outflow();
  for (int comp = 0; comp < dims && set_faces; ++comp) {
    const auto ext = face_extent(n, comp);
    const FieldView<T> u = u_[std::size_t(comp)].view();
    const FieldView<const T> w = wall_[std::size_t(comp)].cview();
    for (int side = 0; side < 2; ++side) {
      const int st = side_code(case_.sides[std::size_t(2 * comp + side)].type);
      if (st == k_periodic) continue;  // face n is face 0's image: set with the ghosts
      Box slab{{0, 0, 0}, {ext[0] - 1, ext[1] - 1, ext[2] - 1}};
      const int idx = side ? ext[comp] - 1 : 0, inner = side ? idx - 1 : 1;
      slab.lo[comp] = slab.hi[comp] = idx;
      const T fac = T(st == k_velocity ? factor : 1.0);
      const int cc = comp;
      for_each(dev, slab, [=] GRIDSOLVE_HD(int i, int j, int k) {
        if (st == k_outflow) {
          int J[3] = {i, j, k};
          J[cc] = inner;
          u(i, j, k) = at(u, J);
        } else {
          u(i, j, k) = w(i, j, k) * fac;
        }
      });
      if (!has_outflow) continue;  // the mass balance below needs the fluxes
      // Net flux through this side, inward positive for inflow measurement.
      const double s = side ? -1.0 : 1.0;
      const double flux = reduce<double>(
          dev, slab,
          [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
            const int I[3] = {i, j, k};
            double area = 1;
            for (int q = 0; q < g.dims; ++q)
              if (q != cc) area *= g.width(q, I[q]);
            return s * double(u(i, j, k)) * area;
          },
          SumOp{}, 0.0);
      if (st == k_outflow)
        outflow -= flux;
      else
        inflow += flux;
    }
  }
  // Global mass balance: the outflow carries exactly what comes in.
  if (set_faces && has_outflow && (outflow != 0 || inflow != 0)) {
    for (int comp = 0; comp < dims; ++comp)
      for (int side = 0; side < 2; ++side) {
        if (case_.sides[std::size_t(2 * comp + side)].type != SideType::outflow) continue;
        const auto ext = face_extent(n, comp);
        Box slab{{0, 0, 0}, {ext[0] - 1, ext[1] - 1, ext[2] - 1}};
        slab.lo[comp] = slab.hi[comp] = side ? ext[comp] - 1 : 0;
        const FieldView<T> u = u_[std::size_t(comp)].view();
        const bool scale = std::abs(outflow) > 1e-14 * (std::abs(inflow) + 1e-300);
        const T ratio = T(scale ? inflow / outflow : 1.0);
        for_each(dev, slab, [=] GRIDSOLVE_HD(int i, int j, int k) { u(i, j, k) *= ratio; });
      }
  }
  for (int comp = 0; comp < dims; ++comp) fill_velocity_ghosts(comp, factor);
  fill_pressure_ghosts();
}

// Ghost layers of velocity component comp, axis by axis (corners included): walls and
// inflows mirror about their value, periodic sides copy from the other end (after face
// n of a periodic normal axis has become face 0's copy), the rest copy the edge.
template <class T>
void FlowSolver<T>::fill_velocity_ghosts(int comp, double factor) {
  const int dims = case_.dims;
  const auto& n = grid_.cells();
  const Device dev = device_;
  int types[6];
  for (int s = 0; s < 6; ++s) types[s] = side_code(case_.sides[std::size_t(s)].type);
  const auto ext = face_extent(n, comp);
  const FieldView<T> u = u_[std::size_t(comp)].view();
  const FieldView<const T> w = wall_[std::size_t(comp)].cview();
  if (periodic_[std::size_t(comp)]) {
    Box slab{{0, 0, 0}, {ext[0] - 1, ext[1] - 1, ext[2] - 1}};
    slab.lo[comp] = slab.hi[comp] = ext[comp] - 1;
    const int cc = comp;
    for_each(dev, slab, [=] GRIDSOLVE_HD(int i, int j, int k) {
      int J[3] = {i, j, k};
      J[cc] = 0;
      u(i, j, k) = at(u, J);
    });
  }
  for (int a = 0; a < dims; ++a)
    for (int side = 0; side < 2; ++side) {
      Box slab{{-1, -1, dims == 3 ? -1 : 0}, {ext[0], ext[1], dims == 3 ? ext[2] : 0}};
      const int gidx = side ? ext[a] : -1;
      const int st = types[2 * a + side];
      // Periodic: the ghost is the value one period (n cells, or n faces) away.
      const int inner =
          st == k_periodic ? (side ? gidx - n[a] : gidx + n[a]) : (side ? ext[a] - 1 : 0);
      slab.lo[a] = slab.hi[a] = gidx;
      const bool normal = a == comp;
      const T fac = T(st == k_velocity ? factor : 1.0);
      const int aa = a;
      for_each(dev, slab, [=] GRIDSOLVE_HD(int i, int j, int k) {
        int J[3] = {i, j, k};
        J[aa] = inner;
        const T uin = at(u, J);
        if (!normal && (st == k_wall || st == k_velocity))
          u(i, j, k) = T(2) * w(i, j, k) * fac - uin;
        else
          u(i, j, k) = uin;
      });
    }
}

// Pressure ghosts: zero gradient, or the other end's value across periodic sides.
template <class T>
void FlowSolver<T>::fill_pressure_ghosts() {
  const int dims = case_.dims;
  const auto& n = grid_.cells();
  const FieldView<T> p = p_.view();
  for (int a = 0; a < dims; ++a)
    for (int side = 0; side < 2; ++side) {
      Box slab{{-1, -1, dims == 3 ? -1 : 0}, {n[0], n[1], dims == 3 ? n[2] : 0}};
      const int gidx = side ? n[a] : -1;
      const int inner = periodic_[std::size_t(a)] ? (side ? 0 : n[a] - 1) : (side ? n[a] - 1 : 0);
      slab.lo[a] = slab.hi[a] = gidx;
      const int aa = a;
      for_each(device_, slab, [=] GRIDSOLVE_HD(int i, int j, int k) {
        int J[3] = {i, j, k};
        J[aa] = inner;
        p(i, j, k) = at(p, J);
      });
    }
}

template <class T>
void FlowSolver<T>::assemble_momentum(int comp, const TimeWeights& w, double relax,
                                      bool extrapolated) {
  MomentumAssembly<T> m;
  m.g = grid_.geometry();
  m.c = comp;
  m.scheme = int(case_.convection);
  for (int s = 0; s < 6; ++s) m.side_type[s] = side_code(case_.sides[std::size_t(s)].type);
  for (int q = 0; q < 3; ++q) m.periodic[q] = periodic_[std::size_t(q)];
  m.nu = T(case_.nu);
  m.tcoef = T(w.now);
  m.c_n = T(w.previous);
  m.c_nm1 = T(w.before);
  m.transient = w.now > 0;
  m.relax = T(relax);
  m.factor = T(inflow_factor_);
  m.simplec = case_.coupling == Coupling::simplec;
  const auto& convecting = extrapolated ? u_conv_ : u_;
  for (int q = 0; q < case_.dims; ++q)
    m.u[q] = convecting[std::size_t(q)].cview(), m.open[q] = open_[std::size_t(q)].cview();
  const std::size_t c = std::size_t(comp);
  m.un = u_n_[c].cview();
  m.unm1 = u_nm1_[c].cview();
  m.wall = wall_[c].cview();
  m.body = body_[c].cview();
  StencilOperator<T>& op = mom_[c];
  m.fmask = op.mask.cview();
  const auto ext = face_extent(grid_.cells(), comp);
  m.ext = Box{{-1, -1, -1}, {ext[0], ext[1], ext[2]}};
  m.ap = op.ap.view();
  m.a[0] = op.aw.view(), m.a[1] = op.ae.view(), m.a[2] = op.as.view(), m.a[3] = op.an.view();
  if (case_.dims == 3) m.a[4] = op.ab.view(), m.a[5] = op.at.view();
  m.b0 = b0_[c].view();
  m.d = d_[c].view();
  for_each(device_, op.active, m);
}

// The velocity a BDF2 step linearizes its momentum equation about: (1 + omega) u^n -
// omega u^{n-1} (omega = dt / previous dt; 2 u^n - u^{n-1} for equal steps), ghosts and
// boundary faces included (their time levels extrapolate the same way). Linearized
// about u^n, the convecting fluxes and the limited correction lag by a step and the scheme
// is first order in time: DFG 2D-2's lift amplitude then moved by 6% when the step was
// halved at 16 cells per diameter, and by 3% at 32.
template <class T>
void FlowSolver<T>::extrapolate_convecting_velocity(double omega) {
  const T a = T(1 + omega), b = T(omega);
  for (int c = 0; c < case_.dims; ++c) {
    const std::size_t s = std::size_t(c);
    const T* un = u_n_[s].storage();
    const T* unm1 = u_nm1_[s].storage();
    T* out = u_conv_[s].storage();
    const int count = int(u_conv_[s].storage_size());
    for_each(device_, Box{{0, 0, 0}, {count - 1, 0, 0}},
             [=] GRIDSOLVE_HD(int i, int, int) { out[i] = a * un[i] - b * unm1[i]; });
  }
}

// Predictor: the pressure force joins b0, then red-black SOR sweeps.
template <class T>
void FlowSolver<T>::sweep_momentum(int comp, int sweeps) {
  const std::size_t c = std::size_t(comp);
  StencilOperator<T>& op = mom_[c];
  const FieldView<const T> b0 = b0_[c].cview(), p = p_.cview();
  const FieldView<T> rhs = op.rhs.view();
  const MacGeometry g = grid_.geometry();
  const int cc = comp;
  for_each(device_, op.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
    const int I[3] = {i, j, k};
    int L[3] = {i, j, k};
    L[cc] -= 1;
    double area = 1;
    for (int q = 0; q < g.dims; ++q)
      if (q != cc) area *= g.width(q, I[q]);
    rhs(i, j, k) = b0(i, j, k) + T(area) * (at(p, L) - p(i, j, k));
  });
  if (case_.momentum_solver == "bicgstab") {
    // Krylov: to the momentum tolerance (default 1e-6 relative), Jacobi preconditioned.
    bicgstab_[c].setup(op);
    SolveOptions so;
    so.tolerance = case_.momentum_tolerance > 0 ? case_.momentum_tolerance : 1e-6;
    so.max_iterations = 200;
    so.progress_after = 1e30;
    bicgstab_[c].solve(u_[c], so);
    return;
  }
  const StencilView<T> a = op.view();
  const FieldView<T> u = u_[c].view();
  const T omega = T(predictor_omega(comp));
  const bool wraps = periodic_[0] || periodic_[1] || periodic_[2];
  auto sweep = [&](int count) {
    for (int s = 0; s < count; ++s)
      for (int colour = 0; colour < 2; ++colour) {
        for_each_colour(device_, op.active, colour, [=] GRIDSOLVE_HD(int i, int j, int k) {
          if (!a.is_free(i, j, k)) return;
          const T gs = (a.b(i, j, k) + a.neighbours(u, i, j, k)) / a.diag(i, j, k);
          u(i, j, k) += omega * (gs - u(i, j, k));
        });
        // The neighbours across a periodic side are copies: refresh them as they change.
        if (wraps) fill_velocity_ghosts(comp, inflow_factor_);
      }
  };
  const double tolerance = case_.predictor_tolerance();
  if (tolerance <= 0) {
    sweep(sweeps);
    return;
  }
  // Residual control: one reduction per block of sweeps.
  const double start = op.residual_norm(nullptr, u_[c]);
  for (int block = 0; block < 100; ++block) {
    sweep(sweeps);
    if (op.residual_norm(nullptr, u_[c]) <= tolerance * start) break;
  }
}

// On fine grids a PISO step's momentum rows are diffusion-dominated (the time term,
// volume / dt ~ h at a fixed CFL number, fades against diffusion's ~1): Gauss-Seidel then
// needs many sweeps, and over-relaxation saves most of them; where the time term
// dominates, Gauss-Seidel is already best. rho, the largest sum |a_nb| / a_P, bounds
// the Jacobi iteration's spectral radius, and red-black ordering makes Young's
// optimal_omega(rho) the best factor for the symmetric (diffusion) part. It is
// capped at 1.3: convection makes the rows nonsymmetric, and on the 4096^2 cavity 1.5
// was no faster than 1.3 and 1.7 slower than 1.0. Recomputed every predictor, from the
// rows alone, so that a restarted run takes the same factors.
template <class T>
double FlowSolver<T>::predictor_omega(int comp) const {
  const double chosen = case_.predictor_omega();
  if (chosen > 0) return chosen;
  const StencilView<T> a = mom_[std::size_t(comp)].view();
  const double rho = reduce<double>(
      device_, a.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        if (!a.is_free(i, j, k)) return 0.0;
        double s;
        if (a.uniform) {
          s = std::abs(double(a.cw)) + std::abs(double(a.ce)) + std::abs(double(a.cs)) +
              std::abs(double(a.cn));
          if (a.dims == 3) s += std::abs(double(a.cb)) + std::abs(double(a.ct));
        } else {
          s = std::abs(double(a.aw(i, j, k))) + std::abs(double(a.ae(i, j, k))) +
              std::abs(double(a.as(i, j, k))) + std::abs(double(a.an(i, j, k)));
          if (a.dims == 3) s += std::abs(double(a.ab(i, j, k))) + std::abs(double(a.at(i, j, k)));
        }
        return s / std::abs(double(a.diag(i, j, k)));
      },
      MaxOp{}, 0.0);
  if (!(rho < 1)) return 1.0;  // no diagonal dominance (or NaN): no over-relaxation
  return std::clamp(optimal_omega(rho), 1.0, 1.3);
}

// Pressure equation from continuity of u = HbyA + d (p_lo - p_hi), solved, then the
// velocity corrected; `correctors` times (PISO 2, SIMPLE 1).
template <class T>
void FlowSolver<T>::project(int correctors, bool relax_pressure, StepReport& r, bool measure) {
  const int dims = case_.dims;
  const auto& n = grid_.cells();
  const MacGeometry g = grid_.geometry();
  const bool simplec = case_.coupling == Coupling::simplec;
  Field<T> p_prev;
  if (relax_pressure) p_prev = p_.copy_to(device_);
  for (int corr = 0; corr < correctors; ++corr) {
    double rhs_sq = 0;
    bool continue_solve = true;
    apply_boundaries(inflow_factor_);
    // HbyA at every face (boundary faces keep their value).
    for (int comp = 0; comp < dims; ++comp) {
      const std::size_t c = std::size_t(comp);
      const StencilView<T> a = mom_[c].view();
      const FieldView<const T> u = u_[c].cview(), b0 = b0_[c].cview(), d = d_[c].cview(),
                               p = p_.cview();
      const FieldView<T> h = hbya_[c].view();
      const auto ext = face_extent(n, comp);
      const int cc = comp;
      for_each(device_, Box{{0, 0, 0}, {ext[0] - 1, ext[1] - 1, ext[2] - 1}},
               [=] GRIDSOLVE_HD(int i, int j, int k) {
                 if (!a.active.contains(i, j, k) || !a.is_free(i, j, k)) {
                   h(i, j, k) = u(i, j, k);
                   return;
                 }
                 const T ap = a.diag(i, j, k);
                 T v = (b0(i, j, k) + a.neighbours(u, i, j, k)) / ap;
                 if (simplec) {
                   const int I[3] = {i, j, k};
                   int L[3] = {i, j, k};
                   L[cc] -= 1;
                   double area = 1;
                   for (int q = 0; q < g.dims; ++q)
                     if (q != cc) area *= g.width(q, I[q]);
                   v += (T(area) / ap - d(i, j, k)) * (at(p, L) - p(i, j, k));
                 }
                 h(i, j, k) = v;
               });
    }
    // The pressure operator and its right-hand side.
    {
      FieldView<const T> h[3], dd[3], op[3];
      FieldView<const std::uint8_t> fm[3];
      Box act[3];
      // Face n of a periodic axis is face 0.
      int wrap_at[3] = {-1, -1, -1};
      for (int q = 0; q < dims; ++q)
        if (periodic_[std::size_t(q)]) wrap_at[q] = n[q];
      for (int q = 0; q < dims; ++q) {
        op[q] = open_[std::size_t(q)].cview();
        h[q] = hbya_[std::size_t(q)].cview();
        dd[q] = d_[std::size_t(q)].cview();
        fm[q] = mom_[std::size_t(q)].mask.cview();
        act[q] = mom_[std::size_t(q)].active;
      }
      const FieldView<const std::uint8_t> pm = pop_.mask.cview();
      const FieldView<T> ap = pop_.ap.view(), rhs = pop_.rhs.view();
      FieldView<T> nb[6] = {pop_.aw.view(), pop_.ae.view(), pop_.as.view(),
                            pop_.an.view(), FieldView<T>{}, FieldView<T>{}};
      if (dims == 3) nb[4] = pop_.ab.view(), nb[5] = pop_.at.view();
      for_each(device_, pop_.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
        const int I[3] = {i, j, k};
        if (pm(i, j, k)) {
          ap(i, j, k) = 1;
          for (int f = 0; f < 2 * g.dims; ++f) nb[f](i, j, k) = 0;
          rhs(i, j, k) = 0;
          return;
        }
        double sum = 0, b = 0;
        for (int q = 0; q < g.dims; ++q) {
          double area = 1;
          for (int e = 0; e < g.dims; ++e)
            if (e != q) area *= g.width(e, I[e]);
          for (int side = 0; side < 2; ++side) {
            int F[3] = {i, j, k};
            F[q] += side;
            if (F[q] == wrap_at[q]) F[q] = 0;
            const bool free_face = act[q].contains(F[0], F[1], F[2]) && !at(fm[q], F);
            const double open_area = area * double(at(op[q], F));
            const double coef = free_face ? open_area * double(at(dd[q], F)) : 0.0;
            nb[2 * q + side](i, j, k) = T(coef);
            sum += coef;
            b -= (side ? 1.0 : -1.0) * open_area * double(at(h[q], F));
          }
        }
        ap(i, j, k) = T(sum);
        rhs(i, j, k) = T(b);
      });
      // Continuity of HbyA is solvable only with zero net source: remove the round-off.
      const FieldView<const T> rc = pop_.rhs.cview();
      const SumCount sc = reduce<SumCount>(
          device_, pop_.active,
          [=] GRIDSOLVE_HD(int i, int j, int k) -> SumCount {
            if (pm(i, j, k)) return SumCount{};
            const double v = rc(i, j, k);
            return SumCount{v, v * v};
          },
          SumOp{}, SumCount{});
      const T mean = T(sc.s / double(pop_.unknowns));
      for_each(device_, pop_.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
        if (!pm(i, j, k)) rhs(i, j, k) -= mean;
      });
      if (corr == 0) r.continuity = std::sqrt(sc.q / double(pop_.unknowns));
      rhs_sq = sc.q;
    }
    SolveOptions so;
    so.tolerance = case_.pressure_tolerance;
    if (!case_.steady()) {
      // Transient: the target is an absolute mass imbalance (the tolerance times the
      // flux of one face at the reference velocity), so that a nearly balanced second
      // corrector does not chase round-off relative to its own tiny right-hand side.
      double face = case_.u_ref;
      for (int q = 0; q < dims; ++q) face *= q == 0 ? 1.0 : grid_.min_width(q);
      const double rms = std::sqrt(rhs_sq / double(pop_.unknowns));
      if (rms <= case_.pressure_tolerance * face) continue_solve = false;
      so.tolerance =
          std::clamp(case_.pressure_tolerance * face / std::max(rms, 1e-300), 1e-12, 0.5);
    }
    so.max_iterations = 500;
    so.progress_after = 1e30;
    if (!continue_solve) continue;  // already balanced to the target
    const auto t0 = std::chrono::steady_clock::now();
    if (profiling_) synchronize(device_);
    const SolveReport sr = solve_pressure(so);
    if (pop_.periodic) fill_pressure_ghosts();  // the correction reads p across the sides
    if (profiling_) {
      synchronize(device_);
      pressure_seconds_ +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    ++pressure_solves_;
    pressure_iterations_ += sr.iterations;
    r.pressure_iterations += sr.iterations;
    r.pressure_residual = sr.relative_residual;
    r.pressure_converged = r.pressure_converged && sr.converged;
    if (!std::isfinite(sr.relative_residual))
      throw Error("the pressure solve produced a non-finite value: the flow diverged",
                  Error::Kind::runtime);
    // Correct the velocity with the new pressure.
    for (int comp = 0; comp < dims; ++comp) {
      const std::size_t c = std::size_t(comp);
      const StencilView<T> a = mom_[c].view();
      const FieldView<const T> h = hbya_[c].cview(), d = d_[c].cview(), p = p_.cview();
      const FieldView<T> u = u_[c].view();
      const int cc = comp;
      for_each(device_, mom_[c].active, [=] GRIDSOLVE_HD(int i, int j, int k) {
        if (!a.is_free(i, j, k)) return;
        int L[3] = {i, j, k};
        L[cc] -= 1;
        u(i, j, k) = h(i, j, k) + d(i, j, k) * (at(p, L) - p(i, j, k));
      });
    }
  }
  if (relax_pressure) {
    const FieldView<T> p = p_.view();
    const FieldView<const T> po = p_prev.cview();
    const T ap = T(case_.relax_p);
    for_each(device_, pop_.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
      p(i, j, k) = po(i, j, k) + ap * (p(i, j, k) - po(i, j, k));
    });
  }
  // Ghosts only: re-extrapolating the outflow now would undo the last cells' continuity.
  apply_boundaries(inflow_factor_, false);
  if (measure) r.divergence = max_divergence();
}

template <class T>
SolveReport FlowSolver<T>::solve_pressure(const SolveOptions& options) {
  // Set up once; the coefficients change every iteration but slowly, so the hierarchy
  // (or preconditioner) of an earlier setup still makes a convergent cycle: it is
  // refreshed with update() every `lifetime` solves, and at once when a solve misses.
  constexpr int lifetime = 25;
  // A checkpoint must rebuild the same hierarchy: keep what it was built from.
  auto remember = [&] {
    if (!keep_setup_) return;
    const std::vector<Field<T>*> arrays = pressure_arrays();
    setup_coefficients_.resize(arrays.size());
    for (std::size_t a = 0; a < arrays.size(); ++a) {
      if (setup_coefficients_[a].empty())
        setup_coefficients_[a] = arrays[a]->copy_to(device_);
      else
        setup_coefficients_[a].copy_from(*arrays[a]);
    }
  };
  if (!pressure_ready_ || pressure_age_ >= lifetime) {
    setup_pressure(!pressure_ready_);
    remember();
    pressure_ready_ = true;
    pressure_age_ = 0;
  }
  ++pressure_age_;
  auto solve = [&] { return pressure_solver_->solve(p_, options); };
  SolveReport r = solve();
  if (!r.converged && pressure_age_ > 1) {
    setup_pressure(false);
    remember();
    pressure_age_ = 1;
    const SolveReport again = solve();
    const int before = r.iterations;
    r = again;
    r.iterations += before;
  }
  return r;
}

template <class T>
void FlowSolver<T>::setup_pressure(bool fresh) {
  // update() keeps the hierarchy's storage and recomputes its coarse operators: the
  // same arithmetic as setup(), so a restart that sets up afresh continues bit for bit.
  if (fresh)
    pressure_solver_->setup(pop_);
  else
    pressure_solver_->update(pop_);
}

template <class T>
std::vector<Field<T>*> FlowSolver<T>::pressure_arrays() {
  std::vector<Field<T>*> a{&pop_.ap, &pop_.aw, &pop_.ae, &pop_.as, &pop_.an, &pop_.rhs};
  if (case_.dims == 3) a.push_back(&pop_.ab), a.push_back(&pop_.at);
  return a;
}

namespace {

// The whole storage of a field (ghosts and padding included), as bytes.
template <class T>
void put_field(Checkpoint& c, const std::string& name, const Field<T>& f) {
  const Field<T> host = f.copy_to(Device::cpu);
  c.put(name, host.storage(), std::size_t(host.storage_size()));
}

template <class T>
void get_field(const Checkpoint& c, const std::string& name, Field<T>& f) {
  const std::vector<unsigned char>& b = c.bytes(name);
  const std::size_t want = std::size_t(f.storage_size()) * sizeof(T);
  if (b.size() != want)
    throw Error(
        fmt::format("checkpoint '{}': field '{}' has {} bytes, this grid needs {}; it was "
                    "written for another grid or by another build",
                    c.source, name, b.size(), want));
  Field<T> host = f.copy_to(Device::cpu);
  std::memcpy(host.storage(), b.data(), want);
  f.copy_from(host);
}

}  // namespace

template <class T>
void FlowSolver<T>::save_state(Checkpoint& c) const {
  for (int q = 0; q < case_.dims; ++q) {
    const std::size_t s = std::size_t(q);
    put_field(c, fmt::format("u{}", q), u_[s]);
    put_field(c, fmt::format("u{}_n", q), u_n_[s]);
    put_field(c, fmt::format("u{}_nm1", q), u_nm1_[s]);
  }
  put_field(c, "p", p_);
  const bool kept = pressure_ready_ && !setup_coefficients_.empty();
  if (pressure_ready_ && !kept)
    throw Error(
        "a checkpoint of this run cannot rebuild its pressure solver: call "
        "keep_pressure_setup(true) before the first step",
        Error::Kind::runtime);
  for (std::size_t a = 0; kept && a < setup_coefficients_.size(); ++a)
    put_field(c, fmt::format("pressure_setup_{}", a), setup_coefficients_[a]);
  const double reals[] = {time_, inflow_factor_, pressure_seconds_, dt_previous_};
  c.put("solver_reals", reals, 4);
  const long long ints[] = {steps_,        have_previous_ ? 1 : 0, pressure_ready_ ? 1 : 0,
                            pressure_age_, pressure_solves_,       pressure_iterations_};
  c.put("solver_integers", ints, 6);
}

template <class T>
void FlowSolver<T>::restore_state(const Checkpoint& c) {
  const std::vector<double> reals = c.get<double>("solver_reals");
  const std::vector<long long> ints = c.get<long long>("solver_integers");
  if (reals.size() != 4 || ints.size() != 6)
    throw Error(fmt::format("checkpoint '{}': the solver's scalars are malformed", c.source));
  bool sane = reals[0] >= 0 && reals[3] >= 0 && ints[0] >= 0;
  for (const double r : reals) sane = sane && std::isfinite(r);
  if (!sane)
    throw Error(
        fmt::format("checkpoint '{}': the solver's state holds impossible values (time "
                    "{}, step {})",
                    c.source, reals[0], ints[0]));
  for (int q = 0; q < case_.dims; ++q) {
    const std::size_t s = std::size_t(q);
    get_field(c, fmt::format("u{}", q), u_[s]);
    get_field(c, fmt::format("u{}_n", q), u_n_[s]);
    get_field(c, fmt::format("u{}_nm1", q), u_nm1_[s]);
  }
  get_field(c, "p", p_);
  time_ = reals[0];
  inflow_factor_ = reals[1];
  pressure_seconds_ = reals[2];
  dt_previous_ = reals[3];
  steps_ = ints[0];
  have_previous_ = ints[1] != 0;
  pressure_ready_ = ints[2] != 0;
  pressure_age_ = int(ints[3]);
  pressure_solves_ = ints[4];
  pressure_iterations_ = ints[5];
  if (pressure_ready_) {
    // Rebuild the hierarchy from the operator it was built from; the next projection
    // assembles the current coefficients over these arrays before any solve reads them.
    const std::vector<Field<T>*> arrays = pressure_arrays();
    for (std::size_t a = 0; a < arrays.size(); ++a)
      get_field(c, fmt::format("pressure_setup_{}", a), *arrays[a]);
    setup_pressure(true);
    setup_coefficients_.clear();
    keep_setup_ = true;
    for (Field<T>* f : arrays) setup_coefficients_.push_back(f->copy_to(device_));
  }
}

template <class T>
double FlowSolver<T>::max_divergence() const {
  const MacGeometry g = grid_.geometry();
  FieldView<const T> u[3], op[3];
  for (int q = 0; q < case_.dims; ++q)
    u[q] = u_[std::size_t(q)].cview(), op[q] = open_[std::size_t(q)].cview();
  const FieldView<const std::uint8_t> pm = pop_.mask.cview();
  return reduce<double>(
      device_, pop_.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        if (pm(i, j, k)) return 0.0;
        const int I[3] = {i, j, k};
        double vol = 1, div = 0;
        for (int q = 0; q < g.dims; ++q) vol *= g.width(q, I[q]);
        for (int q = 0; q < g.dims; ++q) {
          int F[3] = {i, j, k};
          F[q] += 1;
          div += (double(at(op[q], F) * at(u[q], F)) - double(op[q](i, j, k) * u[q](i, j, k))) *
                 vol / g.width(q, I[q]);
        }
        div /= vol;
        return div < 0 ? -div : div;
      },
      MaxOp{}, 0.0);
}

namespace {
template <class T>
double max_change(Device d, const Box& b, const FieldView<const T>& a,
                  const FieldView<const T>& o) {
  return reduce<double>(
      d, b,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const double x = double(a(i, j, k)) - double(o(i, j, k));
        return x < 0 ? -x : x;
      },
      MaxOp{}, 0.0);
}
}  // namespace

template <class T>
StepReport FlowSolver<T>::piso_step(double dt, bool measure) {
  require(dt > 0 && std::isfinite(dt), fmt::format("time step {} is not positive", dt));
  const int dims = case_.dims;
  StepReport r;
  r.measured = measure;
  const bool bdf2 = case_.time_scheme == TimeScheme::bdf2;
  if (bdf2 && steps_ > 0) {
    for (int c = 0; c < dims; ++c) u_nm1_[std::size_t(c)].copy_from(u_n_[std::size_t(c)]);
    have_previous_ = true;
  }
  for (int c = 0; c < dims; ++c) u_n_[std::size_t(c)].copy_from(u_[std::size_t(c)]);
  const double t_new = time_ + dt;
  inflow_factor_ =
      case_.inflow_period > 0 ? std::sin(std::numbers::pi * t_new / case_.inflow_period) : 1.0;
  apply_boundaries(inflow_factor_);
  // BDF2 over steps of unequal length (omega = dt / previous dt): with the constant-step
  // weights the time derivative would be off by 1.5 - 0.5 / omega, which a shortened last
  // step (to land on t_end) turns into a wrong pressure at the final time.
  const bool second_order = bdf2 && have_previous_;
  const double omega = second_order ? dt / dt_previous_ : 1.0;
  const TimeWeights w = second_order
                            ? TimeWeights{(1 + 2 * omega) / ((1 + omega) * dt), (1 + omega) / dt,
                                          omega * omega / ((1 + omega) * dt)}
                            : TimeWeights{1.0 / dt, 1.0 / dt, 0.0};
  if (second_order) extrapolate_convecting_velocity(omega);
  for (int c = 0; c < dims; ++c) assemble_momentum(c, w, 1.0, second_order);
  for (int c = 0; c < dims; ++c) sweep_momentum(c, case_.momentum_sweeps);
  project(case_.correctors, false, r, measure);
  time_ = t_new;
  dt_previous_ = dt;
  ++steps_;
  if (measure) r.change = std::max(r.change, velocity_change());
  return r;
}

template <class T>
double FlowSolver<T>::velocity_change() const {
  double change = 0;
  for (int c = 0; c < case_.dims; ++c) {
    const auto ext = face_extent(grid_.cells(), c);
    change =
        std::max(change, max_change(device_, Box{{0, 0, 0}, {ext[0] - 1, ext[1] - 1, ext[2] - 1}},
                                    u_[std::size_t(c)].cview(), u_n_[std::size_t(c)].cview()));
  }
  return change;
}

template <class T>
StepReport FlowSolver<T>::simple_iteration(bool measure) {
  const int dims = case_.dims;
  StepReport r;
  r.measured = measure;
  if (measure)
    for (int c = 0; c < dims; ++c) u_n_[std::size_t(c)].copy_from(u_[std::size_t(c)]);
  apply_boundaries(1.0);
  for (int c = 0; c < dims; ++c) assemble_momentum(c, TimeWeights{}, case_.relax_u);
  for (int c = 0; c < dims; ++c) sweep_momentum(c, case_.momentum_sweeps);
  project(1, case_.relax_p < 1.0, r, measure);
  ++steps_;
  if (measure) r.change = std::max(r.change, velocity_change());
  return r;
}

template <class T>
double FlowSolver<T>::cfl_time_step(double cfl) const {
  const MacGeometry g = grid_.geometry();
  FieldView<const T> u[3];
  for (int q = 0; q < case_.dims; ++q) u[q] = u_[std::size_t(q)].cview();
  const double rate = reduce<double>(
      device_, pop_.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const int I[3] = {i, j, k};
        double s = 0;
        for (int q = 0; q < g.dims; ++q) {
          int F[3] = {i, j, k};
          F[q] += 1;
          double v = 0.5 * (double(u[q](i, j, k)) + double(at(u[q], F)));
          s += (v < 0 ? -v : v) / g.width(q, I[q]);
        }
        return s;
      },
      MaxOp{}, 0.0);
  return rate > 0 ? cfl / rate : 0.0;
}

// The force of the fluid on the bodies, read off the discrete momentum equations: every
// term the bodies put into them (the wall terms of the faces beside fixed faces, and the
// pressure of the cells where a row of free faces ends at a fixed one). Summed over all
// faces, the interior fluxes cancel, so this equals the momentum balance of any control
// volume around the body: it converges as the flow field does.
template <class T>
Forces FlowSolver<T>::forces() const {
  if (case_.obstacles.empty()) return {};
  const MacGeometry g = grid_.geometry();
  const double nu = case_.nu;
  double f[3] = {0, 0, 0};
  for (int comp = 0; comp < case_.dims; ++comp) {
    const std::size_t c = std::size_t(comp);
    const StencilView<T> a = mom_[c].view();
    const FieldView<const T> u = u_[c].cview(), body = body_[c].cview();
    f[c] += reduce<double>(
        device_, mom_[c].active,
        [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
          return a.is_free(i, j, k) ? nu * double(body(i, j, k)) * double(u(i, j, k)) : 0.0;
        },
        SumOp{}, 0.0);
  }
  FieldView<const std::uint8_t> fm[3];
  Box act[3];
  for (int q = 0; q < case_.dims; ++q) {
    fm[q] = mom_[std::size_t(q)].mask.cview();
    act[q] = mom_[std::size_t(q)].active;
  }
  const FieldView<const T> p = p_.cview();
  const F2 pf = reduce<F2>(
      device_, pop_.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> F2 {
        const int I[3] = {i, j, k};
        double out[2] = {0, 0};
        for (int q = 0; q < 2; ++q) {
          int H[3] = {i, j, k};
          H[q] += 1;
          const bool lo_fixed = at(fm[q], I) != 0, hi_fixed = at(fm[q], H) != 0;
          const bool lo_free = act[q].contains(i, j, k) && !lo_fixed;
          const bool hi_free = act[q].contains(H[0], H[1], H[2]) && !hi_fixed;
          const double area = g.width(1 - q, I[1 - q]);
          if (lo_free && hi_fixed) out[q] += double(p(i, j, k)) * area;
          if (lo_fixed && hi_free) out[q] -= double(p(i, j, k)) * area;
        }
        return F2{out[0], out[1]};
      },
      SumOp{}, F2{});
  return Forces{f[0] + pf.x, f[1] + pf.y};
}

template class FlowSolver<double>;

}  // namespace gridsolve::flow
