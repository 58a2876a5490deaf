// MagnetDesign: the geometry, target field and wire count of a cylindrical coil design.
#pragma once
#include <numbers>
#include <string>

namespace gridsolve::magnet {

inline constexpr double mu0 = 4e-7 * std::numbers::pi;  // vacuum permeability, T m / A

// A cylinder of radius r0 and half-height z0 whose surface current makes the uniform
// field B z-hat inside, closed by a superconducting box of radius r1, half-height z1.
// Lengths in metres, B in tesla. The defaults are the source's case.
struct MagnetDesign {
  double r0 = 0.25, z0 = 0.5;
  double r1 = 2.0, z1 = 2.0;
  double dr = 0.005, dz = 0.005;  // mesh spacing; must divide r0, z0, r1 and z1
  double B = 0.008;
  int wires = 10;              // wires on the upper half (mirrored below)
  double axis_span = 0.4;      // length of the central part of the axis for homogeneity
  double sphere_radius = 0.1;  // radius of the central sphere for homogeneity

  // Throws Error (invalid input) naming the first value that cannot work.
  void validate() const;
  // Nodes per axis of the reduced (r, z >= 0) grid, and the magnet corner's indices.
  int nr() const;
  int nz() const;
  int corner_i() const;  // r0 / dr
  int corner_j() const;  // z0 / dz
  std::string describe() const;
};

// Number of spacings `step` in `length`, when that is a whole number (to 1e-6 of a
// step); throws Error naming `what` otherwise.
int whole_steps(double length, double step, const std::string& what);

}  // namespace gridsolve::magnet
