#include "gridsolve/apps/magnet/magnet_problem.hpp"

namespace gridsolve::magnet {

ProblemSpec make_magnet_problem(const MagnetDesign& d) {
  d.validate();
  ProblemSpec spec;
  spec.name = "magnet scalar potential (axisymmetric Laplace)";
  spec.grid = Grid::box(2, {d.nr(), d.nz(), 1}, {0, 0, 0}, {d.r1, d.z1, 0});
  spec.grid.geometry = Geometry::axisymmetric;
  for (BoundaryCondition& bc : spec.boundaries) {
    bc.kind = BoundaryKind::neumann;  // axis (no flux by the r weight) and the outer box
    bc.g = Expression::value(0);
  }
  spec.boundaries[y_low].kind = BoundaryKind::dirichlet;  // midplane: Phi odd in z
  MaskRegion magnet;  // removes the nodes strictly inside; the surface stays a boundary
  magnet.kind = NodeKind::outside;
  magnet.lo = {-d.dr, -d.dz, 0};
  magnet.hi = {d.r0, d.z0, 0};
  spec.regions.push_back(magnet);
  return spec;
}

CutFlux magnet_cut_flux(const MagnetDesign& d) {
  const double dphi_dz = -d.B / mu0;
  return [dphi_dz](double, double, int axis, int sign) { return axis == 1 ? sign * dphi_dz : 0.0; };
}

}  // namespace gridsolve::magnet
