// CUDA back end of red_black_sweep.hpp: both colours of a 2D red-black sweep in one pass,
// a tile at a time in shared memory.
#pragma once
#include "gridsolve/core/box.hpp"
#include "gridsolve/core/field_view.hpp"
#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/cuda_launch.cuh"

namespace gridsolve::cuda {

// 32 x 32 nodes a tile, 256 threads: a row of the tile is one 256-byte line in double, and
// the two rings read beside it add 27% to what a tile loads (from L2: its neighbours load
// the same nodes).
constexpr int rb_tile_x = 32;
constexpr int rb_tile_y = 32;
constexpr int rb_threads = 256;

// A thread's nodes of one colour in rows [jlo, jhi] x columns [ilo, ihi]: at most Most.
template <int Most>
struct ColourNodes {
  int i[Most], j[Most];
  bool on[Most];
  __device__ ColourNodes(int colour, int ilo, int ihi, int jlo, int jhi, int k) {
    const int per_row = (ihi - ilo + 2) / 2;
    const int count = ilo > ihi || jlo > jhi ? 0 : per_row * (jhi - jlo + 1);
#pragma unroll
    for (int t = 0; t < Most; ++t) {
      const int q = int(threadIdx.x) + t * rb_threads;
      on[t] = false;
      i[t] = j[t] = 0;
      if (q >= count) continue;
      const int r = q / per_row;
      j[t] = jlo + r;
      i[t] = ilo + ((ilo + j[t] + k + colour) & 1) + 2 * (q - r * per_row);
      on[t] = i[t] <= ihi;
    }
  }
};

// Updates a thread's nodes of one colour in the tile held in `s` (seen globally as `v`).
// Every new value is computed before any is stored (a node's update reads only the other
// colour and itself), so the rows of all of a thread's nodes are read together.
template <int Most, class T, class U>
__device__ __forceinline__ void update_in_tile(T* s, int sx, int i_origin, int j_origin,
                                               const FieldView<const T>& v, const U& update,
                                               const ColourNodes<Most>& nodes, int k) {
  T value[Most];
#pragma unroll
  for (int t = 0; t < Most; ++t) {
    const int i = nodes.i[t], j = nodes.j[t];
    value[t] = nodes.on[t] ? update(update.row(i, j, k), v, i, j, k) : T(0);
  }
#pragma unroll
  for (int t = 0; t < Most; ++t)
    if (nodes.on[t]) s[(nodes.j[t] - j_origin) * sx + (nodes.i[t] - i_origin)] = value[t];
}

// Each stage's loads are issued together, which is what keeps the memory busy between the
// barriers. Reading the rows of both colours in the first stage instead (beside the tile)
// was slower: with constant rows the registers it took left 5 blocks an SM instead of 8, and
// a 2047^2 sweep took 46 us against 38; rows of per-node coefficients took 126 registers.
template <class T, class U>
__global__ void __launch_bounds__(rb_threads)
    red_black_tile_kernel(Box active, Box region, Box readable, int first, U update,
                          FieldView<const T> in, FieldView<T> out) {
  constexpr int sx = rb_tile_x + 4, sy = rb_tile_y + 4;
  __shared__ T s[sx * sy];
  const int k = active.lo[2];
  const int i0 = region.lo[0] + int(blockIdx.x) * rb_tile_x;
  const int j0 = region.lo[1] + int(blockIdx.y) * rb_tile_y;
  const int i_origin = i0 - 2, j_origin = j0 - 2;  // global index of s[0]
  // The first colour on the tile and one ring (the second colour's neighbours there), the
  // second colour on the tile; both only at nodes of the active box.
  constexpr int ring_most = ((rb_tile_x + 3) / 2 * (rb_tile_y + 2) + rb_threads - 1) / rb_threads;
  constexpr int tile_most = ((rb_tile_x + 1) / 2 * rb_tile_y + rb_threads - 1) / rb_threads;
  // The tile and two rings, where the input has values: every load issued before the
  // first store.
  constexpr int loads = (sx * sy + rb_threads - 1) / rb_threads;
  T loaded[loads];
#pragma unroll
  for (int t = 0; t < loads; ++t) {
    const int q = int(threadIdx.x) + t * rb_threads;
    const int r = q / sx, c = q - r * sx;
    const int i = i_origin + c, j = j_origin + r;
    loaded[t] = q < sx * sy && readable.contains(i, j, k) ? in(i, j, k) : T(0);
  }
#pragma unroll
  for (int t = 0; t < loads; ++t) {
    const int q = int(threadIdx.x) + t * rb_threads;
    if (q < sx * sy) s[q] = loaded[t];
  }
  __syncthreads();
  // The shared tile seen as the field: the same global indices, one ring of ghosts.
  FieldView<const T> v;
  v.data = s - i_origin - std::int64_t(sx) * j_origin;
  v.pitch = sx;
  v.plane = 0;
  v.begin = {i0 - 1, j0 - 1, k};
  v.extent = {rb_tile_x + 2, rb_tile_y + 2, 1};
  v.ghost = 1;
  // (Each stage finds its nodes when it starts: found before the loads, they were held
  // through them; with constant rows that took 40 registers a thread against 30, 6 blocks
  // an SM instead of 8.)
  {
    const ColourNodes<ring_most> ring(first, max(i0 - 1, active.lo[0]),
                                      min(i0 + rb_tile_x, active.hi[0]), max(j0 - 1, active.lo[1]),
                                      min(j0 + rb_tile_y, active.hi[1]), k);
    update_in_tile(s, sx, i_origin, j_origin, v, update, ring, k);
  }
  __syncthreads();
  {
    const ColourNodes<tile_most> tile(1 - first, max(i0, active.lo[0]),
                                      min(i0 + rb_tile_x - 1, active.hi[0]), max(j0, active.lo[1]),
                                      min(j0 + rb_tile_y - 1, active.hi[1]), k);
    update_in_tile(s, sx, i_origin, j_origin, v, update, tile, k);
  }
  __syncthreads();
#pragma unroll
  for (int q = int(threadIdx.x); q < rb_tile_x * rb_tile_y; q += rb_threads) {
    const int r = q / rb_tile_x, c = q - r * rb_tile_x;
    const int i = i0 + c, j = j0 + r;
    if (region.contains(i, j, k)) out(i, j, k) = s[(r + 2) * sx + c + 2];
  }
}

template <class T, class U>
void launch_red_black_sweep(const Box& active, const Box& region, const Box& readable, int first,
                            const U& update, const FieldView<const T>& in,
                            const FieldView<T>& out) {
  if (region.empty()) return;
  const dim3 grid(unsigned((region.extent(0) + rb_tile_x - 1) / rb_tile_x),
                  unsigned((region.extent(1) + rb_tile_y - 1) / rb_tile_y));
  red_black_tile_kernel<T, U>
      <<<grid, rb_threads, 0, exec_stream()>>>(active, region, readable, first, update, in, out);
  check_launch("red-black sweep launch");
}

}  // namespace gridsolve::cuda
