#include "gridsolve/core/grid.hpp"

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"

namespace gridsolve {

Grid Grid::unit(int dims, int n) {
  return box(dims, {n, n, dims == 3 ? n : 1}, {0, 0, 0}, {1, 1, 1});
}

Grid Grid::box(int dims, std::array<int, 3> nodes, std::array<double, 3> lo,
               std::array<double, 3> hi) {
  require(dims == 2 || dims == 3, fmt::format("dims must be 2 or 3, got {}", dims));
  Grid g;
  g.dims = dims;
  for (int a = 0; a < 3; ++a) {
    if (a >= dims) {
      g.n[a] = 1;
      g.spacing[a] = 1;
      g.origin[a] = 0;
      continue;
    }
    require(nodes[a] >= 3,
            fmt::format("a grid needs at least 3 nodes per axis, got {} on axis {}", nodes[a], a));
    require(nodes[a] <= (1 << 20),
            fmt::format("at most 2^20 nodes per axis, got {} on axis {}", nodes[a], a));
    require(hi[a] > lo[a],
            fmt::format("domain must have positive length on axis {}: [{}, {}]", a, lo[a], hi[a]));
    g.n[a] = nodes[a];
    g.origin[a] = lo[a];
    g.spacing[a] = (hi[a] - lo[a]) / (nodes[a] - 1);
  }
  return g;
}

std::string Grid::describe() const {
  if (dims == 2)
    return fmt::format("{} x {} nodes, h = {:.4g} x {:.4g}", n[0], n[1], spacing[0], spacing[1]);
  return fmt::format("{} x {} x {} nodes, h = {:.4g} x {:.4g} x {:.4g}", n[0], n[1], n[2],
                     spacing[0], spacing[1], spacing[2]);
}

}  // namespace gridsolve
