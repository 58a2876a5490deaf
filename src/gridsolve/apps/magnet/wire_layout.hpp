// Wire layout: N loops per half at evenly spaced levels of the surface current's
// stream function dPhi, found by inverse monotone interpolation; mirrored below.
#pragma once
#include <string>
#include <vector>

#include "gridsolve/apps/magnet/biot_savart.hpp"
#include "gridsolve/apps/magnet/magnet_design.hpp"
#include "gridsolve/apps/magnet/surface_jump.hpp"

namespace gridsolve::magnet {

struct Wire {
  int index = 0;        // 1 .. N on the upper half, counted from the midplane
  std::string surface;  // "body" or "cap"
  double r = 0, z = 0;  // loop radius and height (upper half, z > 0)
  double level = 0;     // the dPhi level, (index - 0.5) I / N
  double current = 0;   // amperes, I / N
};

// Levels (k - 0.5) I/N, k = 1..N, located on the surface path by monotone interpolation
// of s(dPhi). Throws Error (runtime) when dPhi is not increasing along the path, which
// means the solution is not converged or the mesh is far too coarse.
std::vector<Wire> place_wires(const MagnetDesign& d, const SurfaceJump& jump, int n);

// Both halves as current loops: the upper wires and their mirror images at -z, with
// the same current and sense (the surface current is even in z).
std::vector<CurrentLoop> loops_of(const std::vector<Wire>& wires);

}  // namespace gridsolve::magnet
