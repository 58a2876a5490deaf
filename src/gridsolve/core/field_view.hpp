// FieldView: a non-owning, by-value view of a padded array of one or more components,
// indexed by global (i, j, k), with a ghost layer around its valid box.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "gridsolve/core/box.hpp"

#if defined(GRIDSOLVE_BOUNDS_CHECK)
#if defined(__CUDA_ARCH__)
#include <cassert>
#else
#include <cstdio>
#include <cstdlib>
#endif
#endif

namespace gridsolve {

// Storage layout: x fastest, `ghost` layers on every side, rows padded so that the first
// valid value of each row is aligned (coalesced device loads, vector CPU loads);
// components one after the other (structure of arrays), each component aligned.
struct Layout {
  std::array<int, 3> n{1, 1, 1};      // valid values per axis
  std::array<int, 3> begin{0, 0, 0};  // global index of the first valid value
  int ghost = 1;
  int ncomp = 1;
  std::int64_t pitch = 0;      // elements between rows (y stride)
  std::int64_t plane = 0;      // elements between planes (z stride)
  std::int64_t component = 0;  // elements between components
  std::int64_t offset = 0;     // element index of the first valid value of component 0
  std::int64_t size = 0;       // elements allocated

  static Layout make(std::array<int, 3> n, int dims, std::size_t elem_bytes, int ghost = 1,
                     int ncomp = 1, std::array<int, 3> begin = {0, 0, 0}) {
    Layout l;
    l.n = n;
    l.begin = begin;
    l.ghost = ghost;
    l.ncomp = ncomp;
    const std::int64_t align = std::int64_t(128 / elem_bytes);  // 128-byte rows
    const std::int64_t row = n[0] + 2 * ghost;
    // The valid row start is aligned; the ghost values sit just before it.
    l.pitch = ((row + align) + align - 1) / align * align;
    const std::int64_t rows = n[1] + 2 * ghost;
    l.plane = l.pitch * rows;
    const std::int64_t planes = dims == 3 ? n[2] + 2 * ghost : 1;
    const std::int64_t zoff = dims == 3 ? ghost : 0;
    l.offset = align + l.pitch * ghost + l.plane * zoff;
    l.component = l.plane * planes;  // a multiple of pitch: every component stays aligned
    l.size = l.component * ncomp;
    return l;
  }
  // The valid box in global indices.
  Box interior() const {
    return Box{begin, {begin[0] + n[0] - 1, begin[1] + n[1] - 1, begin[2] + n[2] - 1}};
  }
};

template <class T>
struct FieldView {
  T* data = nullptr;  // points at global index (0,0,0) of component 0 (which may lie
                      // outside the allocation when the valid box does not start at 0)
  std::int64_t pitch = 0;
  std::int64_t plane = 0;
  std::int64_t component = 0;  // elements between components
  // Bounds: valid box begin / extent, ghost width and component count.
  std::array<int, 3> begin{0, 0, 0};
  std::array<int, 3> extent{0, 0, 0};
  int ghost = 0;
  int ncomp = 1;

  int zghost = 0;  // ghost planes in z (0 for a 2D field)

  GRIDSOLVE_HD T& operator()(int i, int j, int k) const {
    check(i, j, k, 0);
    return data[i + pitch * j + plane * k];
  }
  GRIDSOLVE_HD T& operator()(int i, int j, int k, int c) const {
    check(i, j, k, c);
    return data[i + pitch * j + plane * k + component * c];
  }
  GRIDSOLVE_HD std::int64_t index(int i, int j, int k) const { return i + pitch * j + plane * k; }
  GRIDSOLVE_HD explicit operator bool() const { return data != nullptr; }
  // The valid box (ghosts excluded), in global indices.
  GRIDSOLVE_HD Box box() const {
    return Box{begin,
               {begin[0] + extent[0] - 1, begin[1] + extent[1] - 1, begin[2] + extent[2] - 1}};
  }
  // The same memory, read only.
  template <class U = T, class = std::enable_if_t<!std::is_const_v<U>>>
  GRIDSOLVE_HD operator FieldView<const U>() const {
    return FieldView<const U>{data, pitch, plane, component, begin, extent, ghost, ncomp, zghost};
  }

  // With GRIDSOLVE_BOUNDS_CHECK, an index outside the valid box grown by the ghost width
  // or a component out of range stops the program with the index and the bounds.
  GRIDSOLVE_HD void check([[maybe_unused]] int i, [[maybe_unused]] int j, [[maybe_unused]] int k,
                          [[maybe_unused]] int c) const {
#if defined(GRIDSOLVE_BOUNDS_CHECK)
    const bool ok = c >= 0 && c < ncomp && i >= begin[0] - ghost &&
                    i <= begin[0] + extent[0] - 1 + ghost && j >= begin[1] - ghost &&
                    j <= begin[1] + extent[1] - 1 + ghost && k >= begin[2] - zghost &&
                    k <= begin[2] + extent[2] - 1 + zghost;
    if (!ok) {
#if defined(__CUDA_ARCH__)
      printf(
          "gridsolve: index (%d, %d, %d, %d) outside field [%d..%d] x [%d..%d] x [%d..%d], "
          "ghost %d, %d components\n",
          i, j, k, c, begin[0], begin[0] + extent[0] - 1, begin[1], begin[1] + extent[1] - 1,
          begin[2], begin[2] + extent[2] - 1, ghost, ncomp);
      assert(false);
#else
      std::fprintf(stderr,
                   "gridsolve: index (%d, %d, %d, %d) outside field [%d..%d] x [%d..%d] x "
                   "[%d..%d], ghost %d, %d components\n",
                   i, j, k, c, begin[0], begin[0] + extent[0] - 1, begin[1],
                   begin[1] + extent[1] - 1, begin[2], begin[2] + extent[2] - 1, ghost, ncomp);
      std::abort();
#endif
    }
#endif
  }
};

}  // namespace gridsolve
