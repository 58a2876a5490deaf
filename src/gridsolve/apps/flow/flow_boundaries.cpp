// The flow solver's boundaries: the ghost rules of the velocity and pressure (built once
// from the sides), the boundary faces of the normal components (walls, inflows, outflows
// rescaled to the inflow), and the inflow's ramp in time. Every ghost is filled by
// exchange_ghosts.
#include <cmath>
#include <numbers>

#include "gridsolve/apps/flow/flow_loop_helpers.hpp"
#include "gridsolve/apps/flow/flow_solver.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"
#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve::flow {

using namespace detail;

// Velocity component comp: walls and inflows mirror its tangential ghosts about their
// value (held in wall_'s ghost layer), so the wall, half a cell out, has it; its normal
// ghosts, and every ghost of outflow and symmetry sides, copy the edge (the boundary face
// holds the normal value); periodic sides copy from the other end (a periodic normal
// axis's face n being face 0's image). The pressure: zero gradient, or periodic.
template <class T>
void FlowSolver<T>::build_ghost_rules() {
  const int dims = case_.dims;
  for (int comp = 0; comp < dims; ++comp) {
    GhostSides& s = velocity_ghosts_[std::size_t(comp)];
    for (int f = 0; f < 2 * dims; ++f) {
      const SideType type = case_.sides[std::size_t(f)].type;
      if (type == SideType::periodic) {
        s.face[f] = GhostRule::periodic;
      } else if (f / 2 != comp && (type == SideType::wall || type == SideType::velocity)) {
        s.face[f] = GhostRule::mirror;
        s.mirror[f].from_field = true;
      } else {
        s.face[f] = GhostRule::copy_edge;
      }
    }
  }
  for (int f = 0; f < 2 * dims; ++f)
    pressure_ghosts_.face[f] =
        periodic_[std::size_t(f / 2)] ? GhostRule::periodic : GhostRule::copy_edge;
}

template <class T>
void FlowSolver<T>::ramp_inflow(double t) {
  inflow_factor_ =
      case_.inflow_period > 0 ? std::sin(std::numbers::pi * t / case_.inflow_period) : 1.0;
}

// The inflow sides' wall values are scaled by `factor` (their ramp); walls keep theirs.
template <class T>
void FlowSolver<T>::exchange_velocity_ghosts(int comp, double factor) {
  GhostSides s = velocity_ghosts_[std::size_t(comp)];
  for (int f = 0; f < 2 * case_.dims; ++f)
    if (case_.sides[std::size_t(f)].type == SideType::velocity) s.mirror[f].factor = factor;
  exchange_ghosts(u_[std::size_t(comp)], s, wall_[std::size_t(comp)]);
}

template <class T>
void FlowSolver<T>::exchange_pressure_ghosts() {
  exchange_ghosts(p_, pressure_ghosts_);
}

// Boundary faces of the normal axis (wall and inflow values, outflow extrapolated and
// scaled to the inflow), then the ghost layers of every field.
template <class T>
void FlowSolver<T>::apply_boundaries(double factor, bool set_faces, bool pressure) {
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
      slab = slab.intersect(u_[std::size_t(comp)].interior());  // this part's share
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
      const double flux = sum_over_ranks(
          slab.empty() ? 0.0
                       : reduce<double>(
                             dev, slab,
                             [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
                               const int I[3] = {i, j, k};
                               return s * double(u(i, j, k)) * face_area(g, cc, I);
                             },
                             SumOp{}, 0.0));
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
        slab = slab.intersect(u_[std::size_t(comp)].interior());
        const FieldView<T> u = u_[std::size_t(comp)].view();
        const bool scale = std::abs(outflow) > 1e-14 * (std::abs(inflow) + 1e-300);
        const T ratio = T(scale ? inflow / outflow : 1.0);
        for_each(dev, slab, [=] GRIDSOLVE_HD(int i, int j, int k) { u(i, j, k) *= ratio; });
      }
  }
  for (int comp = 0; comp < dims; ++comp) exchange_velocity_ghosts(comp, factor);
  if (pressure) exchange_pressure_ghosts();
}

template void FlowSolver<double>::build_ghost_rules();
template void FlowSolver<double>::ramp_inflow(double);
template void FlowSolver<double>::exchange_velocity_ghosts(int, double);
template void FlowSolver<double>::exchange_pressure_ghosts();
template void FlowSolver<double>::apply_boundaries(double, bool, bool);

}  // namespace gridsolve::flow
