// Red-black sweeps of a 2D field: a colour at a time in place, or both colours in one pass
// from one field into another.
#pragma once
#include <cstddef>

#include "gridsolve/core/box.hpp"
#include "gridsolve/core/field_view.hpp"
#include "gridsolve/core/hd.hpp"
#include "gridsolve/exec/parallel_for.hpp"

#if defined(__CUDACC__)
#include "gridsolve/exec/cuda_red_black.cuh"
#endif

namespace gridsolve {

// An update is a functor with a row type:
//   Row row(int i, int j, int k): what the update of node (i, j, k) reads besides the field
//     (its coefficients and right-hand side);
//   T operator()(const Row& r, const FieldView<const T>& v, int i, int j, int k): the new
//     value of node (i, j, k) of `active` from its row and the values v holds there and at
//     its face neighbours (a Gauss-Seidel or SOR row).
// A node's colour is (i + j + k) % 2.

template <class T, class U>
struct ColourUpdateBody {
  U update;
  FieldView<T> v;
  GRIDSOLVE_HD void operator()(int i, int j, int k) const {
    v(i, j, k) = update(update.row(i, j, k), FieldView<const T>(v), i, j, k);
  }
};

// One colour's nodes of `active` updated in place.
template <class T, class U>
void colour_update(Device d, const Box& active, int colour, const U& update, FieldView<T> v) {
  for_each_colour(d, active, colour, ColourUpdateBody<T, U>{update, v});
}

// Why a second form: a colour's pass reads every cache line of the field and of the rows'
// coefficients to update half the nodes, so two passes move each word twice. This one
// updates colour `first`, then the other, in one pass over memory: a tile and its two
// rings of neighbours read once, the first colour updated on the tile and one ring (the
// ring a neighbouring tile updates too, to the same value), the second on the tile. The
// tiles must not see each other's writes, so the result goes to another field:
//   out = in with colour `first`, then the other colour, updated at the nodes of `active`,
// and in's own values at the other nodes within one of `active` (what a sweep reads).
// The values are those of colour_update(first) then colour_update(1 - first), to the bit.
// 2D fields only (active.lo[2] == active.hi[2]), and nothing may have to be refreshed
// between the colours (periodic images, other ranks' ghosts): callers check
// red_black_sweep_fuses, which also says where it pays. On the host the colour passes
// stream well enough. In float they were faster on an H200: a 2047^2 multigrid solve took
// 2.12-2.16 ms sweeping in one pass against 1.82-1.98 ms by colours, where double gained
// (3.82-4.10 ms against 4.14-4.30, the same calls).
inline bool red_black_sweep_fuses(Device d, int dims, bool refreshes_between_colours,
                                  std::size_t value_bytes) {
  return d == Device::cuda && dims == 2 && !refreshes_between_colours && value_bytes == 8;
}

template <class T>
struct CopyBody {
  FieldView<const T> in;
  FieldView<T> out;
  GRIDSOLVE_HD void operator()(int i, int j, int k) const { out(i, j, k) = in(i, j, k); }
};

// A 2D box grown by g in x and y.
inline Box grown_in_plane(const Box& b, int g) {
  Box r = b.grown(g);
  r.lo[2] = b.lo[2];
  r.hi[2] = b.hi[2];
  return r;
}

template <class T, class U>
void red_black_sweep(Device d, const Box& active, int first, const U& update,
                     const FieldView<const T>& in, const FieldView<T>& out) {
  require(active.lo[2] == active.hi[2], "red_black_sweep: 2D fields only");
  const Box readable = grown_in_plane(in.box(), in.ghost);
  const Box region =
      grown_in_plane(active, 1).intersect(readable).intersect(grown_in_plane(out.box(), out.ghost));
  if (d == Device::cuda) {
#if defined(__CUDACC__)
    cuda::launch_red_black_sweep(active, region, readable, first, update, in, out);
    return;
#else
    throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
  }
  // On the host: the same values by the copy and two colour passes in place.
  for_each(d, region, CopyBody<T>{in, out});
  colour_update(d, active, first, update, out);
  colour_update(d, active, 1 - first, update, out);
}

}  // namespace gridsolve
