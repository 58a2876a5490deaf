#include "gridsolve/apps/magnet/magnet_run.hpp"

#include <chrono>

namespace gridsolve::magnet {

MagnetResult run_magnet(const MagnetDesign& d, const MagnetSolveSettings& s) {
  d.validate();
  MagnetResult r;
  r.design = d;
  r.field = solve_magnet(d, s);
  // Wires placed from an unconverged potential would be a fake design.
  if (!r.field.report.converged) return r;
  const auto t0 = std::chrono::steady_clock::now();
  r.jump = surface_jump(d, r.field);
  r.wires = place_wires(d, r.jump, d.wires);
  r.loops = loops_of(r.wires);
  r.quality = homogeneity(r.loops, d.axis_span, d.sphere_radius);
  r.axis = axis_profile(r.loops, 2 * d.z0, 1001);
  r.axis_central = axis_profile(r.loops, d.axis_span, 401);
  r.post_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace gridsolve::magnet
