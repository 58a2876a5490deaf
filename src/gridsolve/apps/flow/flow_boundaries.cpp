// The flow solver's boundaries: the ghost rules of the velocity and pressure (built once
// from the sides), the boundary faces of the normal components (walls, inflows, outflows
// rescaled to the inflow), and the inflow's ramp in time. Every ghost is filled by
// exchange_ghosts.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "gridsolve/apps/flow/flow_loop_helpers.hpp"
#include "gridsolve/apps/flow/flow_solver.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/exec/reduce_then.hpp"

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

namespace {

// The boundary faces of the normal components on every side that is not periodic, as one
// loop: row s of the loop's box is side s, its faces flattened along i.
template <class T>
struct BoundaryFaces {
  int sides = 0;
  int comp[6] = {}, type[6] = {}, inner[6] = {};
  double sign[6] = {}, factor[6] = {};  // inward flux positive; the inflow's ramp
  Box slab[6];
  FieldView<T> u[3];
  FieldView<const T> wall[3];
  MacGeometry g;

  Box loop() const {
    std::int64_t most = 0;
    for (int s = 0; s < sides; ++s) most = std::max(most, slab[s].cells());
    return Box{{0, 0, 0}, {int(most) - 1, sides - 1, 0}};
  }
  // Face t of side s, if it has one.
  GRIDSOLVE_HD bool face(int t, int s, int* I) const {
    const Box& b = slab[s];
    if (t >= b.cells()) return false;
    const int e0 = b.extent(0), e1 = b.extent(1);
    I[0] = b.lo[0] + t % e0;
    I[1] = b.lo[1] + (t / e0) % e1;
    I[2] = b.lo[2] + t / (e0 * e1);
    return true;
  }
  // Sets the face (wall and inflow values, the outflow extrapolated) and returns its flux,
  // inward positive: {into the inflows and walls, out of the outflows}.
  GRIDSOLVE_HD SumPair set(int t, int s) const {
    int I[3];
    if (!face(t, s, I)) return {};
    const int c = comp[s];
    T v;
    if (type[s] == k_outflow) {
      int J[3] = {I[0], I[1], I[2]};
      J[c] = inner[s];
      v = at(u[c], J);
    } else {
      v = at(wall[c], I) * T(factor[s]);
    }
    u[c](I[0], I[1], I[2]) = v;
    const double flux = sign[s] * double(v) * face_area(g, c, I);
    return type[s] == k_outflow ? SumPair{0, -flux} : SumPair{flux, 0};
  }
  // Global mass balance: the outflow faces scaled to carry what comes in.
  GRIDSOLVE_HD void balance(int t, int s, const SumPair& flux) const {
    int I[3];
    if (type[s] != k_outflow || !face(t, s, I)) return;
    const double in = flux.first, out = flux.second;
    const bool scale = (out < 0 ? -out : out) > 1e-14 * ((in < 0 ? -in : in) + 1e-300);
    u[comp[s]](I[0], I[1], I[2]) *= T(scale ? in / out : 1.0);
  }
};

}  // namespace

// Boundary faces of the normal axis (wall and inflow values, outflow extrapolated and
// scaled to the inflow), then the ghost layers of every field. The inflow and outflow are
// summed on the device and read there by the rescaling: no wait on the host.
template <class T>
void FlowSolver<T>::apply_boundaries(double factor, bool set_faces, bool pressure) {
  const int dims = case_.dims;
  if (set_faces) {
    const auto& n = grid_.cells();
    BoundaryFaces<T> b;
    b.g = grid_.geometry();
    for (int comp = 0; comp < dims; ++comp) {
      b.u[comp] = u_[std::size_t(comp)].view();
      b.wall[comp] = wall_[std::size_t(comp)].cview();
      const auto ext = face_extent(n, comp);
      for (int side = 0; side < 2; ++side) {
        const int st = side_code(case_.sides[std::size_t(2 * comp + side)].type);
        if (st == k_periodic) continue;  // face n is face 0's image: set with the ghosts
        Box slab{{0, 0, 0}, {ext[0] - 1, ext[1] - 1, ext[2] - 1}};
        const int idx = side ? ext[comp] - 1 : 0;
        slab.lo[comp] = slab.hi[comp] = idx;
        const int s = b.sides++;
        b.slab[s] = slab.intersect(u_[std::size_t(comp)].interior());  // this part's share
        b.comp[s] = comp;
        b.type[s] = st;
        b.inner[s] = side ? idx - 1 : 1;
        b.sign[s] = side ? -1.0 : 1.0;
        b.factor[s] = st == k_velocity ? factor : 1.0;
      }
    }
    const Box loop = b.loop();
    if (!case_.has_outflow()) {
      for_each(device_, loop, [=] GRIDSOLVE_HD(int t, int s, int) { b.set(t, s); });
    } else {
      reduce_then<SumPair>(
          device_, loop, [=] GRIDSOLVE_HD(int t, int s, int) { return b.set(t, s); },
          cell_parts_ != nullptr, loop,
          [=] GRIDSOLVE_HD(int t, int s, int, const SumPair& flux) { b.balance(t, s, flux); });
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
