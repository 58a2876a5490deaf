// The magnet's boundary value problem for the exterior scalar potential Phi_out(r, z).
#pragma once
#include "gridsolve/apps/magnet/magnet_design.hpp"
#include "gridsolve/problem/assemble_axisymmetric.hpp"
#include "gridsolve/problem/problem_spec.hpp"

namespace gridsolve::magnet {

// The potential the design prescribes inside the magnet: H = -grad Phi = (B / mu0) z-hat.
inline double inner_potential(const MagnetDesign& d, double z) {
  return -d.B * z / mu0;
}

// Laplace on the L-shaped reduced domain {z >= 0} minus the magnet, axisymmetric (x = r,
// y = z): Phi = 0 on the midplane (odd in z), zero flux on the superconducting outer
// box, the axis by symmetry; the magnet's surface is a cut-out whose flux data
// (cut_flux below) carries the cap condition.
ProblemSpec make_magnet_problem(const MagnetDesign& d);

// Normal B continuous across the magnet's surface: dPhi_out/dn = n . grad Phi_in, i.e.
// dPhi/dz = -B / mu0 on the cap and dPhi/dr = 0 on the body.
CutFlux magnet_cut_flux(const MagnetDesign& d);

}  // namespace gridsolve::magnet
