// One complete design run: solve the potential, then surface current, wires and field.
#pragma once
#include <vector>

#include "gridsolve/apps/magnet/homogeneity.hpp"
#include "gridsolve/apps/magnet/magnet_solve.hpp"
#include "gridsolve/apps/magnet/surface_jump.hpp"
#include "gridsolve/apps/magnet/wire_layout.hpp"

namespace gridsolve::magnet {

struct MagnetResult {
  MagnetDesign design;
  MagnetField field;
  SurfaceJump jump;
  std::vector<Wire> wires;         // upper half; the lower half mirrors it
  std::vector<CurrentLoop> loops;  // both halves
  Homogeneity quality;
  std::vector<AxisSample> axis;          // B_z of the wires over the magnet's length
  std::vector<AxisSample> axis_central;  // the same over the central span (ppm plot)
  double post_seconds = 0;
};

// Solves, then (only when the solve converged) places the wires and measures the field.
MagnetResult run_magnet(const MagnetDesign& d, const MagnetSolveSettings& s);

}  // namespace gridsolve::magnet
