#include "gridsolve/apps/magnet/magnet_design.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gridsolve/core/error.hpp"

namespace gridsolve::magnet {

int whole_steps(double length, double step, const std::string& what) {
  const double q = length / step;
  const double n = std::round(q);
  require(std::abs(q - n) <= 1e-6 && n >= 1,
          fmt::format("the mesh spacing must fit the magnet: {} is not a whole number of "
                      "spacings ({} / {} = {:.6g}); pick a spacing that divides it",
                      what, length, step, q));
  require(
      n <= double(1 << 20) - 1,
      fmt::format("{} / spacing = {:.6g} nodes is more than a grid axis can hold (2^20)", what, n));
  return int(n);
}

void MagnetDesign::validate() const {
  auto positive = [](double v, const char* name) {
    require(std::isfinite(v) && v > 0, fmt::format("{} must be positive, got {}", name, v));
  };
  positive(r0, "the magnet radius r0");
  positive(z0, "the magnet half-height z0");
  positive(dr, "the radial spacing dr");
  positive(dz, "the axial spacing dz");
  require(std::isfinite(B) && B > 0,
          fmt::format("the target field B must be positive (tesla; the coil's sense sets its "
                      "sign), got {}",
                      B));
  require(std::isfinite(r1) && r1 > r0,
          fmt::format("the outer box radius r1 must exceed the magnet radius r0 = {}, got r1 = {}",
                      r0, r1));
  require(std::isfinite(z1) && z1 > z0,
          fmt::format("the outer box half-height z1 must exceed the magnet half-height z0 = {}, "
                      "got z1 = {}",
                      z0, z1));
  require(wires >= 1,
          fmt::format("the number of wires per half must be at least 1, got {}", wires));
  positive(axis_span, "the axis span for homogeneity");
  positive(sphere_radius, "the homogeneity sphere radius");
  require(sphere_radius < std::min(r0, z0),
          fmt::format("the homogeneity sphere must lie inside the magnet: radius {} must be below "
                      "min(r0, z0) = {}",
                      sphere_radius, std::min(r0, z0)));
  require(axis_span < 2 * z0,
          fmt::format("the axis span {} must be shorter than the magnet's height 2 z0 = {}",
                      axis_span, 2 * z0));
  const int i0 = whole_steps(r0, dr, "r0"), j0 = whole_steps(z0, dz, "z0");
  whole_steps(r1, dr, "r1");
  whole_steps(z1, dz, "z1");
  require(i0 >= 2 && j0 >= 2,
          fmt::format("the mesh is too coarse: the magnet needs at least 2 spacings across r0 and "
                      "z0, got {} and {}",
                      i0, j0));
  // The wires sample the surface current; more of them than mesh spacings along the
  // surface resolve nothing more and only cost Biot-Savart time.
  require(wires <= i0 + j0,
          fmt::format("at most one wire per mesh spacing along the magnet's surface: wires per "
                      "half must be at most r0/dr + z0/dz = {}, got {}",
                      i0 + j0, wires));
}

int MagnetDesign::nr() const {
  return whole_steps(r1, dr, "r1") + 1;
}
int MagnetDesign::nz() const {
  return whole_steps(z1, dz, "z1") + 1;
}
int MagnetDesign::corner_i() const {
  return whole_steps(r0, dr, "r0");
}
int MagnetDesign::corner_j() const {
  return whole_steps(z0, dz, "z0");
}

std::string MagnetDesign::describe() const {
  return fmt::format(
      "magnet r0 = {} m, z0 = {} m, B = {} T; box r1 = {} m, z1 = {} m; "
      "mesh dr = {} m, dz = {} m",
      r0, z0, B, r1, z1, dr, dz);
}

}  // namespace gridsolve::magnet
