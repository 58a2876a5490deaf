// The jump dPhi = Phi_out - Phi_in along the magnet's surface: the stream function of
// its surface current, and the total current of the upper half.
#pragma once
#include <vector>

#include "gridsolve/apps/magnet/magnet_design.hpp"
#include "gridsolve/apps/magnet/magnet_solve.hpp"

namespace gridsolve::magnet {

struct SurfaceJump {
  std::vector<double> body_z, body;  // along the body r = r0, z = 0 .. z0
  std::vector<double> cap_r, cap;    // along the cap z = z0, r = 0 .. r0
  // The surface path from the body's midplane point up the body and in along the cap
  // to the axis: arc length s (0 .. z0 + r0) and dPhi; the current crossing the path
  // between two points is the difference of dPhi.
  std::vector<double> path_s, path;
  double total_current = 0;  // dPhi(cap centre) - dPhi(body midplane), amperes

  // Point of the surface at arc length s: (r, z).
  static void path_point(const MagnetDesign& d, double s, double& r, double& z);
};

SurfaceJump surface_jump(const MagnetDesign& d, const MagnetField& f);

}  // namespace gridsolve::magnet
