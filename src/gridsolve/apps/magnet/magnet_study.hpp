// Convergence studies of the design: dPhi on the surface as the mesh is refined and as
// the outer box grows; relative change between steps and the observed order.
#pragma once
#include <string>
#include <vector>

#include "gridsolve/apps/magnet/magnet_solve.hpp"

namespace gridsolve::magnet {

struct StudyStep {
  std::string sweep;  // "mesh" or "box"
  double h = 0;       // dr = dz
  double r1 = 0, z1 = 0;
  int nodes_r = 0, nodes_z = 0;
  int iterations = 0;
  double seconds = 0;
  bool converged = false;
  double total_current = 0;
  double current_change = 0;  // |I - I_prev| / |I|; NaN on the first step
  double dphi_change = 0;     // max over the surface of |dPhi - dPhi_prev| / I; NaN first
  double order = 0;           // log(change_prev / change) / log(h_prev / h) of dphi_change;
                              // NaN when unknown (the re-entrant corner holds it near 4/3)
  double current_order = 0;   // the same for current_change
};

// Mesh sweep: the design at each spacing (dr = dz = h, largest first).
std::vector<StudyStep> mesh_study(const MagnetDesign& d, const MagnetSolveSettings& s,
                                  std::vector<double> spacings);
// Box sweep: r1 = z1 = each box size, at spacing h.
std::vector<StudyStep> box_study(const MagnetDesign& d, const MagnetSolveSettings& s,
                                 std::vector<double> boxes, double h);

// Max |a(s) - b(s)| over a's abscissae, b interpolated linearly (both sorted by s).
double max_difference_on(const std::vector<double>& sa, const std::vector<double>& a,
                         const std::vector<double>& sb, const std::vector<double>& b);

}  // namespace gridsolve::magnet
