// Slabs of a transform on several ranks (the transform Poisson solver, the demagnetizing
// convolution): the data arrive split along axis t (every other axis whole on each rank, so
// the transforms along them are local); what follows needs every t of a mode (the line
// solves, the transform along t), so the modes are redistributed split along another axis
// s (t whole), and back. One all-to-all each way: each rank sends every other rank the
// block of its t range and that rank's s range.
#pragma once
#include <array>
#include <vector>

#include "gridsolve/exec/device.hpp"

namespace gridsolve {

struct SlabSplit {
  int t = -1;  // the line axis: what the ranks' slabs split
  int s = -1;  // the transformed axis the modes split during the line solves
  int rank = 0, ranks = 1;
  // Per rank, its first index along t (slabs) and along s (lines), ranks + 1 offsets
  // from the first unknown.
  std::vector<int> t_start, s_start;

  bool several() const { return ranks > 1; }
  int t_count(int r) const { return t_start[std::size_t(r) + 1] - t_start[std::size_t(r)]; }
  int s_count(int r) const { return s_start[std::size_t(r) + 1] - s_start[std::size_t(r)]; }
  // The layout of rank r's slab (t local) or lines (s local) of an n-unknown problem.
  std::array<int, 3> slab_extent(const std::array<int, 3>& n, int r) const;
  std::array<int, 3> lines_extent(const std::array<int, 3>& n, int r) const;
};

// slabs (this rank's slab layout, x fastest) -> lines (its lines layout). `send` and
// `receive` hold the slab's and the lines' value counts. Every rank of the split calls it.
template <class T>
void slabs_to_lines(Device d, const SlabSplit& sp, const std::array<int, 3>& n, const T* slabs,
                    T* lines, T* send, T* receive);
// The reverse.
template <class T>
void lines_to_slabs(Device d, const SlabSplit& sp, const std::array<int, 3>& n, const T* lines,
                    T* slabs, T* send, T* receive);

}  // namespace gridsolve
