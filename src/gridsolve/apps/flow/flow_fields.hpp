// Storage of the flow fields: the one place that says how a cell- or face-centred array
// is held, so the solver does not care which field type backs it.
#pragma once
#include <array>

#include "gridsolve/exec/field.hpp"

namespace gridsolve::flow {

// A scalar array over `extent` indices per axis (cells, or the faces of one axis), one
// ghost layer, in the memory of one device.
template <class T>
using StaggeredField = Field<T>;

template <class T>
StaggeredField<T> make_staggered(std::array<int, 3> extent, int dims, Device d) {
  return StaggeredField<T>(extent, dims, d);
}

// Index extent of the faces normal to `axis` of a grid with `cells` cells per axis.
inline std::array<int, 3> face_extent(std::array<int, 3> cells, int axis) {
  cells[axis] += 1;
  return cells;
}

}  // namespace gridsolve::flow
