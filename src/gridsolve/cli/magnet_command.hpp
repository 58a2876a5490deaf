// The magnet command: `gridsolve magnet` designs the coil (defaults: the source's case),
// `gridsolve magnet study` runs the mesh and outer-box convergence sweeps.
#pragma once
#include <string>
#include <vector>

#include "gridsolve/apps/magnet/magnet_design.hpp"

namespace CLI {
class App;
}

namespace gridsolve::cli {

struct MagnetArguments {
  std::string config;
  magnet::MagnetDesign design;  // the declared parameters, as given on the command line
  double h = 0, tol = 0, omega = 0, box_spacing = 0;
  int max_iter = 0;
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
