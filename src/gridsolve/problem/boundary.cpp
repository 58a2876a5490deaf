#include "gridsolve/problem/boundary.hpp"

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"

namespace gridsolve {

std::string to_string(BoundaryKind k) {
  switch (k) {
    case BoundaryKind::dirichlet:
      return "dirichlet";
    case BoundaryKind::neumann:
      return "neumann";
    case BoundaryKind::robin:
      return "robin";
    case BoundaryKind::periodic:
      return "periodic";
  }
  return "?";
}

BoundaryKind parse_boundary_kind(const std::string& s) {
  if (s == "dirichlet") return BoundaryKind::dirichlet;
  if (s == "neumann") return BoundaryKind::neumann;
  if (s == "robin") return BoundaryKind::robin;
  if (s == "periodic") return BoundaryKind::periodic;
  throw Error(
      fmt::format("boundary type must be dirichlet, neumann, robin or periodic, got '{}'", s));
}

std::string face_name(int face) {
  static const char* names[] = {"x_low", "x_high", "y_low", "y_high", "z_low", "z_high"};
  return face >= 0 && face < 6 ? names[face] : "?";
}

}  // namespace gridsolve
