// FieldView: a non-owning, by-value view of a padded 3D array with a ghost layer.
#pragma once
#include <cstddef>
#include <cstdint>

#include "gridsolve/core/box.hpp"

namespace gridsolve {

// Storage layout: x fastest, one ghost node on every side, rows padded so that the
// first interior node of each row is aligned (coalesced device loads, vector CPU loads).
struct Layout {
  std::array<int, 3> n{1, 1, 1};  // interior nodes per axis
  int ghost = 1;
  std::int64_t pitch = 0;   // elements between rows (y stride)
  std::int64_t plane = 0;   // elements between planes (z stride)
  std::int64_t offset = 0;  // element index of node (0,0,0)
  std::int64_t size = 0;    // elements allocated

  static Layout make(std::array<int, 3> n, int dims, std::size_t elem_bytes) {
    Layout l;
    l.n = n;
    const std::int64_t align = std::int64_t(128 / elem_bytes);  // 128-byte rows
    const std::int64_t row = n[0] + 2 * l.ghost;
    // The interior row start (x = 0) is aligned; the ghost node sits just before it.
    l.pitch = ((row + align) + align - 1) / align * align;
    const std::int64_t rows = n[1] + 2 * l.ghost;
    l.plane = l.pitch * rows;
    const std::int64_t planes = dims == 3 ? n[2] + 2 * l.ghost : 1;
    const std::int64_t zoff = dims == 3 ? l.ghost : 0;
    l.offset = align + l.pitch * l.ghost + l.plane * zoff;
    l.size = l.plane * planes;
    return l;
  }
  Box interior() const { return Box{{0, 0, 0}, {n[0] - 1, n[1] - 1, n[2] - 1}}; }
};

template <class T>
struct FieldView {
  T* data = nullptr;  // points at node (0,0,0)
  std::int64_t pitch = 0;
  std::int64_t plane = 0;

  GRIDSOLVE_HD T& operator()(int i, int j, int k) const { return data[i + pitch * j + plane * k]; }
  GRIDSOLVE_HD std::int64_t index(int i, int j, int k) const { return i + pitch * j + plane * k; }
  GRIDSOLVE_HD explicit operator bool() const { return data != nullptr; }
};

}  // namespace gridsolve
