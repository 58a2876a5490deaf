// Grid: a uniform grid in 2D or 3D; node i sits at origin + i * spacing, cell i between
// nodes i and i + 1.
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
  // The indices of values with centring c: nodes 0..n-1, cells 0..n-2 on each axis the
  // grid has; a 2D grid's z axis is always the single index 0.
  Box box(Centring c) const {
    Box b{{0, 0, 0}, {0, 0, 0}, c};
    for (int a = 0; a < dims; ++a) b.hi[a] = c.is_cell(a) ? n[a] - 2 : n[a] - 1;
    return b;
  }
  std::int64_t node_count() const { return std::int64_t(n[0]) * n[1] * n[2]; }
  // Cells per axis (1 on the axes a 2D grid lacks).
  int cells(int axis) const { return axis < dims ? n[axis] - 1 : 1; }
  double coord(int axis, int i) const { return origin[axis] + i * spacing[axis]; }
  // Where value i of the given centring sits on `axis`: a node, or a cell's centre.
  double coord(int axis, int i, IndexType t) const {
    return origin[axis] + (i + (t == IndexType::cell ? 0.5 : 0.0)) * spacing[axis];
  }
  double length(int axis) const { return (n[axis] - 1) * spacing[axis]; }
  std::string describe() const;
};

}  // namespace gridsolve
