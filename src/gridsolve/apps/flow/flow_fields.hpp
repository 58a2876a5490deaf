// Storage of the flow fields: the one place that says how a cell- or face-centred array
// is held (the project's Field with its centring), so the solver does not care.
#pragma once
#include <array>

#include "gridsolve/core/centring.hpp"
#include "gridsolve/core/grid.hpp"
#include "gridsolve/exec/field.hpp"

namespace gridsolve::flow {

template <class T>
using StaggeredField = Field<T>;

// The node grid of a MAC grid with `cells` cells per axis (only counts matter here).
inline Grid mac_node_grid(const std::array<int, 3>& cells, int dims) {
  Grid g;
  g.dims = dims;
  g.n = {cells[0] + 1, cells[1] + 1, dims == 3 ? cells[2] + 1 : 1};
  return g;
}

// Index extent of the faces normal to `axis` (axis -1: the cells).
inline std::array<int, 3> face_extent(std::array<int, 3> cells, int axis) {
  if (axis >= 0) cells[std::size_t(axis)] += 1;
  return cells;
}

// A scalar on the faces normal to `axis` (or on the cells, axis -1), `ghost` layers.
template <class T>
StaggeredField<T> make_staggered(const std::array<int, 3>& cells, int dims, int axis, Device d,
                                 int ghost = 1) {
  return Field<T>(mac_node_grid(cells, dims), axis < 0 ? Centring::cell() : Centring::face(axis), 1,
                  ghost, d);
}

}  // namespace gridsolve::flow
