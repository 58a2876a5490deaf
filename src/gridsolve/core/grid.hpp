// Grid: a uniform nodal grid in 2D or 3D; node i sits at origin + i * spacing.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "gridsolve/core/box.hpp"

namespace gridsolve {

// Cartesian now; axisymmetric (r, z) operators join through this tag.
enum class Geometry { cartesian, axisymmetric };

struct Grid {
  int dims = 2;
  std::array<int, 3> n{1, 1, 1};  // nodes per axis, boundaries included
  std::array<double, 3> spacing{1, 1, 1};
  std::array<double, 3> origin{0, 0, 0};
  Geometry geometry = Geometry::cartesian;

  // The unit square / cube with n nodes per side.
  static Grid unit(int dims, int n);
  // A box [lo, hi] with the given node counts.
  static Grid box(int dims, std::array<int, 3> nodes, std::array<double, 3> lo,
                  std::array<double, 3> hi);

  Box nodes() const { return Box{{0, 0, 0}, {n[0] - 1, n[1] - 1, n[2] - 1}}; }
  std::int64_t node_count() const { return std::int64_t(n[0]) * n[1] * n[2]; }
  double coord(int axis, int i) const { return origin[axis] + i * spacing[axis]; }
  double length(int axis) const { return (n[axis] - 1) * spacing[axis]; }
  std::string describe() const;
};

}  // namespace gridsolve
