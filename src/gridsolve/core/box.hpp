// Box: an inclusive range of integer indices in up to three dimensions, with its centring.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>

#include "gridsolve/core/centring.hpp"
#include "gridsolve/core/hd.hpp"

namespace gridsolve {

struct Box {
  std::array<int, 3> lo{0, 0, 0};
  std::array<int, 3> hi{-1, -1, -1};  // inclusive; lo > hi on an axis means empty
  // What the indices count on each axis: nodes or cells (a box of cells 0..n-2 and a box
  // of nodes 0..n-1 cover the same region).
  Centring centring{};

  GRIDSOLVE_HD int extent(int axis) const { return hi[axis] - lo[axis] + 1; }
  GRIDSOLVE_HD bool empty() const { return hi[0] < lo[0] || hi[1] < lo[1] || hi[2] < lo[2]; }
  GRIDSOLVE_HD std::int64_t cells() const {
    return empty() ? 0
                   : std::int64_t(extent(0)) * std::int64_t(extent(1)) * std::int64_t(extent(2));
  }
  GRIDSOLVE_HD bool contains(int i, int j, int k) const {
    return i >= lo[0] && i <= hi[0] && j >= lo[1] && j <= hi[1] && k >= lo[2] && k <= hi[2];
  }
  Box grown(int g) const {
    return Box{{lo[0] - g, lo[1] - g, lo[2] - g}, {hi[0] + g, hi[1] + g, hi[2] + g}, centring};
  }
  // The smallest box holding both (boxes that are not empty).
  Box hull(const Box& o) const {
    Box r;
    r.centring = centring;
    for (int a = 0; a < 3; ++a) {
      r.lo[a] = std::min(lo[a], o.lo[a]);
      r.hi[a] = std::max(hi[a], o.hi[a]);
    }
    return r;
  }
  Box intersect(const Box& o) const {
    Box r;
    r.centring = centring;
    for (int a = 0; a < 3; ++a) {
      r.lo[a] = std::max(lo[a], o.lo[a]);
      r.hi[a] = std::min(hi[a], o.hi[a]);
    }
    return r;
  }
};

}  // namespace gridsolve
