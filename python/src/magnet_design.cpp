// design_magnet: the settings resolved as the command resolves them, run_magnet, its summary.
#include "magnet_design.hpp"

#include "gridsolve/apps/magnet/magnet_config.hpp"
#include "gridsolve/apps/magnet/magnet_files.hpp"
#include "gridsolve/apps/magnet/magnet_run.hpp"
#include "gridsolve/io/summary_json.hpp"
#include "gridsolve/solve/solve_settings.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve {

MagnetOutcome design_magnet(const MagnetArguments& a) {
  magnet::MagnetDesign d;
  d.r0 = a.r0, d.z0 = a.z0, d.r1 = a.r1, d.z1 = a.z1, d.dr = d.dz = a.h, d.B = a.B;
  d.wires = a.wires, d.axis_span = a.axis_span, d.sphere_radius = a.sphere_radius;
  d.validate();
  // The command's settings: its default solver and tolerances (the source's 0.5e-6 in double).
  SolveSettings settings = magnet::MagnetConfig::default_solve_settings();
  if (!a.solver.empty()) settings.solver = a.solver;
  settings.device = a.device;
  settings.precision = parse_precision(a.precision);
  settings.tolerance = a.tolerance;
  ResolvedSolve r = resolve(settings);
  r.options.on_progress = a.on_progress;
  r.options.progress_after = 0.2;
  const magnet::MagnetSolveSettings s = magnet::magnet_solve_settings(r, "volume");
  const magnet::MagnetResult result = magnet::run_magnet(d, s);
  MagnetOutcome out;
  out.summary = json_text(magnet::summary_json(result));
  out.phi.assign(result.field.phi.begin(), result.field.phi.end());
  out.nr = result.field.grid.n[0];
  out.nz = result.field.grid.n[1];
  for (const magnet::AxisSample& p : result.axis) {
    out.axis_z.push_back(p.z);
    out.axis_bz.push_back(p.bz);
    out.axis_ppm.push_back(p.ppm);
  }
  out.converged = result.field.report.converged;
  return out;
}

}  // namespace gridsolve
