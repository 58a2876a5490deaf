// Small pieces the flow solver's step files share: side types as loop-body integers, a
// view read at an index array, and the check on values a case's formulas give.
#pragma once
#include <fmt/format.h>

#include <cmath>
#include <span>

#include "gridsolve/apps/flow/flow_case.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/core/field_view.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/problem/mac_grid.hpp"
#include "gridsolve/problem/stencil_operator.hpp"

namespace gridsolve::flow::detail {

// Side types as plain integers for loop bodies.
enum : int { k_wall = 0, k_velocity = 1, k_outflow = 2, k_symmetry = 3, k_periodic = 4 };

inline int side_code(SideType t) {
  switch (t) {
    case SideType::wall:
      return k_wall;
    case SideType::velocity:
      return k_velocity;
    case SideType::outflow:
      return k_outflow;
    case SideType::symmetry:
      return k_symmetry;
    default:
      return k_periodic;
  }
}

template <class T>
GRIDSOLVE_HD T at(const FieldView<T>& f, const int* I) {
  return f(I[0], I[1], I[2]);
}

// The area of the face of velocity component `comp` at I: the widths across it, multiplied.
GRIDSOLVE_HD inline double face_area(const MacGeometry& g, int comp, const int* I) {
  double area = 1;
  for (int q = 0; q < g.dims; ++q)
    if (q != comp) area *= g.width(q, I[q]);
  return area;
}

// The whole problem's active box of an operator (the part's own, when it is whole): where a
// face is an unknown anywhere, for loops that read faces beyond their part.
template <class T>
Box whole_active(const StencilOperator<T>& op) {
  return op.parts ? op.global_active : op.active;
}

// Two sums reduced in one pass.
struct SumPair {
  double first = 0, second = 0;
  GRIDSOLVE_HD SumPair operator+(const SumPair& o) const {
    return {first + o.first, second + o.second};
  }
};

// Both sums over every rank in one all-reduce (when the solver runs on ranks).
inline SumPair sum_over_ranks(const SumPair& mine, bool on_ranks) {
  if (!on_ranks) return mine;
  double both[2] = {mine.first, mine.second};
  Communicator::world().sum(std::span<double>(both));
  return SumPair{both[0], both[1]};
}

// A value a case's formula gave (a boundary, an initial field): beyond k_largest_speed,
// or not a number, it is bad input named by what() and the point. what() runs only on
// failure: the check sits in loops over every face.
template <class What>
void require_usable(double value, const What& what, double x, double y, double z) {
  if (!(std::abs(value) < k_largest_speed))
    throw Error(
        fmt::format("{} is {} at ({}, {}, {}); its formula must be finite (below 1e100) "
                    "there",
                    what(), value, x, y, z));
}

}  // namespace gridsolve::flow::detail
