// The magnet command: `gridsolve magnet` designs the coil (defaults: the source's case),
// `gridsolve magnet study` runs the mesh and outer-box convergence sweeps.
#pragma once
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gridsolve::cli {

struct MagnetArguments {
  std::string config;
  double r0 = 0, z0 = 0, r1 = 0, z1 = 0, h = 0, dr = 0, dz = 0, B = 0, tol = 0, omega = 0;
  double axis_span = 0, sphere_radius = 0, box_spacing = 0;
  int wires = 0, max_iter = 0;
  std::string solver, device, precision, out, residual;
  std::vector<double> spacings, boxes;
  bool quiet = false, no_plots = false;
  CLI::App* magnet = nullptr;
  CLI::App* study = nullptr;
};

// Adds `magnet` (and its `study`) to the command line, bound to `args`.
CLI::App* add_magnet_command(CLI::App& app, MagnetArguments& args);

// Runs whichever of the two was given; returns the exit code.
int magnet_command(const MagnetArguments& args);

}  // namespace gridsolve::cli
