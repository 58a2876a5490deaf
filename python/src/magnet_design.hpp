// The magnet design for the Python module: run_magnet as the command runs it (the same
// settings checks and solve), its summary (summary.json's keys) and arrays.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gridsolve/solve/solve_options.hpp"

namespace gridsolve {

struct MagnetArguments {
  double r0 = 0.25, z0 = 0.5, r1 = 2.0, z1 = 2.0, h = 0.005, B = 0.008;
  int wires = 10;
  double axis_span = 0.4, sphere_radius = 0.1;
  std::string solver, device = "cpu", precision = "double";
  std::optional<double> tolerance;
  std::function<void(const ProgressInfo&)> on_progress;  // called during a long solve
};

struct MagnetOutcome {
  std::string summary;      // summary.json's JSON
  std::vector<double> phi;  // the potential, nz rows of nr values (r fastest)
  int nr = 0, nz = 0;
  std::vector<double> axis_z, axis_bz, axis_ppm;  // B_z of the wires along the axis
  bool converged = false;
};

MagnetOutcome design_magnet(const MagnetArguments& a);

}  // namespace gridsolve
