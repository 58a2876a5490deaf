// Boundary conditions per face of the box: Dirichlet, Neumann, Robin or periodic, as data.
#pragma once
#include <array>
#include <string>

#include "gridsolve/problem/expression.hpp"

namespace gridsolve {

enum class BoundaryKind { dirichlet, neumann, robin, periodic };

// dirichlet: u = g; neumann: du/dn = g; robin: du/dn + alpha u = g; n points outward.
// periodic: both faces of an axis together; the last node is the first node's image
// (period (n - 1) h), g and alpha unused.
struct BoundaryCondition {
  BoundaryKind kind = BoundaryKind::dirichlet;
  Expression g = Expression::value(0);
  double alpha = 0;  // robin only
};

// Faces in the order x-low, x-high, y-low, y-high, z-low, z-high.
enum Face { x_low = 0, x_high, y_low, y_high, z_low, z_high };
using Boundaries = std::array<BoundaryCondition, 6>;

std::string to_string(BoundaryKind k);
BoundaryKind parse_boundary_kind(const std::string& s);
std::string face_name(int face);

}  // namespace gridsolve
