// The flow solver's state, built once from the case: the velocity and pressure fields,
// the momentum and pressure operators with their masks of fixed faces and cells, the
// wall values of the sides, the ghost rules, and the check that the fluid is one region.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gridsolve/apps/flow/flow_loop_helpers.hpp"
#include "gridsolve/apps/flow/flow_obstacles.hpp"
#include "gridsolve/apps/flow/flow_solver.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/field_part.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"
#include "gridsolve/problem/stencil_operator_part.hpp"
#include "gridsolve/problem/boundary.hpp"
#include "gridsolve/solve/multigrid/multigrid_options.hpp"
#include "gridsolve/solve/whole_on_every_rank.hpp"

namespace gridsolve::flow {

namespace {

// Whether velocity face F of a component is free (an unknown, not held by a body): the
// pressure cells' mask and the fluid's connectivity both read the faces this way.
template <class T>
bool face_is_free(const StencilOperator<T>& m, const Field<std::uint8_t>& fixed, const int F[3]) {
  return m.active.contains(F[0], F[1], F[2]) && !fixed.cview()(F[0], F[1], F[2]);
}

// On ranks, a body must stay three cells clear of every periodic side: its faces there
// would keep values of their own at the image past the period (the wall terms beside
// them are made from them), which the parts do not carry across. Bodies away from those
// sides split as any other (a body across a periodic side runs as one process).
void require_clear_of_periodic_sides(const FlowCase& c, const MacGrid& grid) {
  const MacGeometry g = grid.host_geometry();
  for (const Obstacle& o : c.obstacles) {
    std::array<double, 2> lo = o.lo, hi = o.hi;
    if (o.shape == Obstacle::Shape::circle) {
      for (int a = 0; a < 2; ++a) lo[a] = o.centre[a] - o.radius, hi[a] = o.centre[a] + o.radius;
    } else if (o.shape == Obstacle::Shape::polygon) {
      lo = hi = o.vertices.front();
      for (const auto& v : o.vertices)
        for (int a = 0; a < 2; ++a) lo[a] = std::min(lo[a], v[a]), hi[a] = std::max(hi[a], v[a]);
    }
    // (a body spans z: along a periodic z it always meets the sides)
    require(c.dims < 3 || !c.periodic(2),
            fmt::format("flow on several ranks: {} spans the periodic z sides; run it as one "
                        "process",
                        o.describe()));
    for (int a = 0; a < 2; ++a) {
      const int n = c.cells[a];
      if (!c.periodic(a)) continue;
      require(n >= 6 && lo[a] > g.xf(a, 3) && hi[a] < g.xf(a, n - 3),
              fmt::format("flow on several ranks: {} comes within three cells of the periodic "
                          "sides along {}; run it as one process, or move it inward",
                          o.describe(), "xyz"[a]));
    }
  }
}

// The pressure's multigrid settings: zebra line relaxation (line_relaxation.hpp) where some
// cell is more than k_line_aspect times longer on one axis than on another, since point
// relaxation stalls on such cells, and the grid is large enough for its finest level to
// take lines (line_level_nodes); red-black points otherwise. On a tensor grid every
// pairing of the axes' widths is a cell, so the largest ratio is the widest over the
// narrowest.
constexpr double k_line_aspect = 3;
MultigridOptions pressure_multigrid_options(const MacGrid& grid) {
  MultigridOptions o;
  double widest = 0, narrowest = 1e300;
  for (int a = 0; a < grid.dims(); ++a)
    for (int i = 0; i < grid.cells()[a]; ++i) {
      widest = std::max(widest, grid.width(a, i));
      narrowest = std::min(narrowest, grid.width(a, i));
    }
  if (widest > k_line_aspect * narrowest && grid.cell_count() > line_level_nodes(o)) {
    o.smoother = Smoother::line;
    // A line sweep on the levels that take them does the work of two point sweeps: V(1,1)
    // cycles. DFG 2D-2 at 64 cells per diameter on one H200: the first 0.6 s took 3.64 s
    // with V(1,1), 4.00 s with V(2,2); the shedding from t = 6 to 6.5 3.01 and 3.09 s.
    o.pre_smooth = o.post_smooth = 1;
  }
  return o;
}

}  // namespace

// Out of line, with a body: the steps' files instantiate only their own members.
template <class T>
FlowSolver<T>::~FlowSolver() {}

template <class T>
FlowSolver<T>::FlowSolver(const FlowCase& c, Device d, bool whole) : case_(c), device_(d) {
  case_.validate();
  const Communicator& comm = Communicator::world();
  if (!whole && comm.size() > 1) {
    std::array<bool, 3> wraps{};
    for (int q = 0; q < c.dims; ++q) wraps[std::size_t(q)] = c.periodic(q);
    const Box cells{{0, 0, 0}, {c.cells[0] - 1, c.cells[1] - 1, c.cells[2] - 1}, Centring::cell()};
    // Three cells a part at least along a split axis: the faces two beyond a cut (the
    // limited schemes' reach) stay within one neighbour.
    // The transform solver's pressure (every side periodic) splits into slabs along the
    // slowest axis, where its ranks path transposes to whole lines.
    std::array<int, 3> process_grid{};
    if (c.direct_pressure()) {
      process_grid = {1, 1, 1};
      process_grid[std::size_t(c.dims - 1)] = comm.size();
    }
    const Decomposition split(cells, c.dims, comm.size(), wraps, process_grid, 3);
    // Along a periodic axis every field's parts hold the image past the period (the last
    // part), as the periodic operators' grids do: each decomposition is staggered there.
    auto with_images = [&](Decomposition d, int except) {
      for (int q = 0; q < c.dims; ++q)
        if (wraps[std::size_t(q)] && q != except) d = d.staggered(q);
      return std::make_shared<const Decomposition>(d);
    };
    cell_parts_ = with_images(split, -1);
    for (int q = 0; q < c.dims; ++q)
      face_parts_[std::size_t(q)] = with_images(split.staggered(q), q);
    rank_ = comm.rank();
  }
  momentum_row_ = &momentum_solver_row(c.momentum_solver);
  require_device(*momentum_row_, d);
  if (!momentum_row_->red_black)
    for (int q = 0; q < c.dims; ++q)
      momentum_solvers_[std::size_t(q)] = momentum_row_->make<T>(MultigridOptions{});
  grid_ = MacGrid(c.dims, c.cells, c.lo, c.hi, c.spacing, d);
  require_resolved(c.obstacles, grid_, c.obstacle_treatment);
  if (cell_parts_) require_clear_of_periodic_sides(c, grid_);
  const auto& n = grid_.cells();
  const MacGeometry hg = grid_.host_geometry();
  for (int q = 0; q < c.dims; ++q) periodic_[std::size_t(q)] = c.periodic(q);

  // Solid cells: centres inside an obstacle (the staircase's body; with the immersed
  // boundary they only tell outputs where the body is).
  Field<std::uint8_t> solid_host = make_staggered<std::uint8_t>(n, c.dims, -1, Device::cpu);
  {
    // (in 3D a body is its shape extruded along z: the same cells on every plane)
    const FieldView<std::uint8_t> sv = solid_host.view();
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i)
        if (inside_any(c.obstacles, hg.xc(0, i), hg.xc(1, j)))
          for (int k = 0; k < n[2]; ++k) sv(i, j, k) = 1;
  }
  std::array<Field<std::uint8_t>, 3> fixed_host;
  double net_inflow = 0, total_inflow = 0;
  for (int comp = 0; comp < c.dims; ++comp)
    build_momentum_operator(comp, fixed_host, net_inflow, total_inflow);
  // Without an outflow nothing can carry away what the inflows bring: their net flux must
  // vanish, or the pressure equation has no solution (the run would report divergence).
  if (!c.has_outflow() && std::abs(net_inflow) > 1e-9 * total_inflow)
    throw Error(
        fmt::format("the inflow sides bring a net volume flux of {:.6g} into a domain "
                    "with no outflow side; make their fluxes cancel, or set a side's "
                    "type to outflow",
                    net_inflow));
  build_pressure_operator(fixed_host);
  if (cell_parts_) {
    solid_ = field_part(solid_host, cell_parts_, rank_).copy_to(d);
    solid_whole_ = std::move(solid_host);
    cut_operators_into_parts();
  } else {
    solid_ = solid_host.copy_to(d);
  }
  const std::int64_t whole_nodes = c.pressure_whole_nodes >= 0
                                       ? c.pressure_whole_nodes
                                       : split_level_nodes(MultigridOptions{}, device_);
  // (split over ranks, the finest levels cannot take lines: red-black points there)
  const bool split = cell_parts_ && grid_.cell_count() > whole_nodes;
  pressure_solver_ = std::make_unique<WholeOnEveryRank<T>>(
      make_solver<T>(c.pressure_solver,
                     split ? MultigridOptions{} : pressure_multigrid_options(grid_)),
      whole_nodes);
  build_ghost_rules();
  apply_boundaries(c.inflow_period > 0 ? 0.0 : 1.0);
  inflow_factor_ = c.inflow_period > 0 ? 0.0 : 1.0;
  if (c.coupling == Coupling::projection) build_projection_operator();
}

// Velocity component comp: its fields, its momentum operator (active faces, faces a body
// holds), and its wall values; `fixed` gets the held faces, the inflow sums the volume
// fluxes of the inflow sides (inward positive) and their magnitudes.
template <class T>
void FlowSolver<T>::build_momentum_operator(int comp, std::array<Field<std::uint8_t>, 3>& fixed,
                                            double& net_inflow, double& total_inflow) {
  const FlowCase& c = case_;
  const int dims = c.dims;
  const Device d = device_;
  // On ranks the masks and wall values are made whole on the host (what they are depends on
  // the whole case: bodies, sides, connectivity) and cut; the rest is made as the parts.
  const Device whole_d = cell_parts_ ? Device::cpu : d;
  const auto& n = grid_.cells();
  const MacGeometry hg = grid_.host_geometry();
  const auto ext = face_extent(n, comp);
  // The velocity's time levels and wall values two ghost layers deep on ranks: the
  // limited convection schemes read the face two beyond, which lies in the next part.
  const int deep = cell_parts_ ? 2 : 1;
  for (auto* f : {&u_, &u_n_, &u_nm1_, &u_conv_}) (*f)[std::size_t(comp)] = state_field(comp, deep);
  for (auto* f : {&hbya_, &b0_, &d_}) (*f)[std::size_t(comp)] = state_field(comp);
  StencilOperator<T>& m = mom_[std::size_t(comp)];
  m.grid.dims = dims;
  m.grid.n = ext;
  m.device = whole_d;
  m.uniform = false;
  Box active{{0, 0, 0}, {ext[0] - 1, ext[1] - 1, ext[2] - 1}};
  // Periodic: face 0 is an unknown and face n its image (a copy, not an unknown).
  active.lo[comp] = periodic_[std::size_t(comp)] ? 0 : 1;
  active.hi[comp] = ext[comp] - 2;
  m.active = active;
  // The project's periodic stencil: one period of unknowns per periodic axis, the
  // operator's grid one node longer there (its image), so that the Krylov momentum
  // solver and the residual norms read across the joint as the sweeps do.
  GhostSides mask_sides;
  // The mask's image face keeps its own value: the wall terms beside it were computed
  // from it.
  mask_sides.rewrite_images = false;
  for (int q = 0; q < dims; ++q)
    if (periodic_[std::size_t(q)]) {
      m.periodic |= std::uint8_t(1u << q);
      m.grid.n[q] = n[q] + 1;
      mask_sides.face[2 * q] = mask_sides.face[2 * q + 1] = GhostRule::periodic;
    }
  if (!cell_parts_) make_coefficient_fields(m, comp);  // on ranks: as parts, once cut
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
  exchange_ghosts(bf.fixed, mask_sides);
  body_[std::size_t(comp)] = to_state(bf.wall, comp);
  open_[std::size_t(comp)] = to_state(bf.open, comp);
  fixed[std::size_t(comp)] = std::move(bf.fixed);
  m.mask = fixed[std::size_t(comp)].copy_to(whole_d);
  m.unknowns = unknowns;

  // Boundary values: the normal component on the boundary faces, the tangential ones
  // in the ghost layer (where the wall value sits for the fold and the ghosts' mirror).
  Field<T> wall = make_staggered<T>(n, dims, comp, Device::cpu, deep);
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
          detail::require_usable(
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
  wall_[std::size_t(comp)] = to_state(wall, comp);
  if (cell_parts_) wall_whole_[std::size_t(comp)] = std::move(wall);
}

template <class T>
const std::shared_ptr<const Decomposition>& FlowSolver<T>::parts_of(int comp) const {
  return comp < 0 ? cell_parts_ : face_parts_[std::size_t(comp)];
}

template <class T>
Field<T> FlowSolver<T>::state_field(int comp, int ghost) const {
  if (!cell_parts_) return make_staggered<T>(grid_.cells(), case_.dims, comp, device_, ghost);
  return Field<T>(parts_of(comp), rank_, 1, ghost, device_);
}

template <class T>
Field<T> FlowSolver<T>::to_state(const Field<T>& whole, int comp) const {
  if (!cell_parts_) return whole.copy_to(device_);
  return field_part(whole, parts_of(comp), rank_).copy_to(device_);
}

template <class T>
void FlowSolver<T>::make_coefficient_fields(StencilOperator<T>& m, int comp) const {
  for (auto* f : {&m.ap, &m.aw, &m.ae, &m.as, &m.an, &m.rhs}) *f = state_field(comp);
  if (case_.dims == 3) m.ab = state_field(comp), m.at = state_field(comp);
}

template <class T>
void FlowSolver<T>::cut_operators_into_parts() {
  // Cut while only the masks are filled: every coefficient is assembled on the part.
  for (int q = 0; q < case_.dims; ++q) {
    const std::size_t c = std::size_t(q);
    mom_[c] = operator_part(mom_[c], parts_of(q), rank_).copy_to(device_);
    make_coefficient_fields(mom_[c], q);
  }
  pop_ = operator_part(pop_, parts_of(-1), rank_).copy_to(device_);
  make_coefficient_fields(pop_, -1);
}

template <class T>
typename FlowSolver<T>::WholeState FlowSolver<T>::whole_state() const {
  WholeState w;
  if (!cell_parts_) {
    for (int q = 0; q < case_.dims; ++q)
      w.u[std::size_t(q)] = u_[std::size_t(q)].copy_to(Device::cpu);
    w.p = p_.copy_to(Device::cpu);
    w.solid = solid_.copy_to(Device::cpu);
    return w;
  }
  const auto& n = grid_.cells();
  for (int q = 0; q < case_.dims; ++q) {
    const std::size_t c = std::size_t(q);
    Field<T> whole = make_staggered<T>(n, case_.dims, q, device_, u_[c].ghost());
    gather_parts_everywhere(u_[c], whole);
    w.u[c] = whole.copy_to(Device::cpu);
    GhostSides s = velocity_ghosts_[c];
    for (int f = 0; f < 2 * case_.dims; ++f)
      if (case_.sides[std::size_t(f)].type == SideType::velocity)
        s.mirror[f].factor = inflow_factor_;
    exchange_ghosts(w.u[c], s, wall_whole_[c]);
  }
  Field<T> p = make_staggered<T>(n, case_.dims, -1, device_);
  gather_parts_everywhere(p_, p);
  w.p = p.copy_to(Device::cpu);
  exchange_ghosts(w.p, pressure_ghosts_);
  w.solid = solid_whole_.copy_to(Device::cpu);
  return w;
}

template <class T>
double FlowSolver<T>::max_over_ranks(double v) const {
  return cell_parts_ ? Communicator::world().max(v) : v;
}

template <class T>
double FlowSolver<T>::sum_over_ranks(double v) const {
  return cell_parts_ ? Communicator::world().sum(v) : v;
}

template <class T>
void FlowSolver<T>::share_ghosts(Field<T>& f) const {
  if (!cell_parts_) return;
  // Across the cuts, and across periodic sides (the image past the period rewritten from
  // the first: the parts read it where one process wraps to face or cell 0).
  GhostSides s;
  for (int q = 0; q < case_.dims; ++q)
    if (periodic_[std::size_t(q)]) s.face[2 * q] = s.face[2 * q + 1] = GhostRule::periodic;
  exchange_ghosts(f, s);
}

// Pressure: cell unknowns; solid cells and cells left without a free face are fixed.
template <class T>
void FlowSolver<T>::build_pressure_operator(const std::array<Field<std::uint8_t>, 3>& fixed) {
  const int dims = case_.dims;
  const Device whole_d = cell_parts_ ? Device::cpu : device_;
  const auto& n = grid_.cells();
  p_ = state_field(-1);
  pop_.grid.dims = dims;
  pop_.grid.n = n;
  pop_.device = whole_d;
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
  if (!cell_parts_) make_coefficient_fields(pop_, -1);  // on ranks: as parts, once cut
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
              if (face_is_free(mom_[std::size_t(q)], fixed[std::size_t(q)], F)) free_face = true;
            }
          pm(i, j, k) = free_face ? 0 : 1;
          if (free_face) ++fluid;
        }
  }
  require(fluid > 0, "the obstacles leave no fluid cell");
  require_connected_fluid(pmask, fixed);
  pop_.mask = pmask.copy_to(whole_d);
  pop_.unknowns = fluid;
  pop_.singular = true;
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

template FlowSolver<double>::FlowSolver(const FlowCase&, Device, bool);
template void FlowSolver<double>::cut_operators_into_parts();
template const std::shared_ptr<const Decomposition>& FlowSolver<double>::parts_of(int) const;
template Field<double> FlowSolver<double>::state_field(int, int) const;
template Field<double> FlowSolver<double>::to_state(const Field<double>&, int) const;
template void FlowSolver<double>::make_coefficient_fields(StencilOperator<double>&, int) const;
template FlowSolver<double>::WholeState FlowSolver<double>::whole_state() const;
template double FlowSolver<double>::max_over_ranks(double) const;
template double FlowSolver<double>::sum_over_ranks(double) const;
template void FlowSolver<double>::share_ghosts(Field<double>&) const;
template FlowSolver<double>::~FlowSolver();
template void FlowSolver<double>::build_momentum_operator(int, std::array<Field<std::uint8_t>, 3>&,
                                                          double&, double&);
template void FlowSolver<double>::build_pressure_operator(
    const std::array<Field<std::uint8_t>, 3>&);
template void FlowSolver<double>::require_connected_fluid(
    const Field<std::uint8_t>&, const std::array<Field<std::uint8_t>, 3>&) const;

}  // namespace gridsolve::flow
