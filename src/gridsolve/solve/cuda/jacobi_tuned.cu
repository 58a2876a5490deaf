// Tuned Jacobi sweep for uniform operators: column strips in registers, 16-byte loads.
#include <cuda_runtime.h>

#include <cstdint>

#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/solve/cuda/stencil_tiles.cuh"
#include "gridsolve/solve/cuda/tuned_kernels.hpp"

namespace gridsolve::tuned {

namespace {

using namespace detail;

// Rows (2D) or planes (3D) one thread updates: its strip plus one halo row on each side
// is loaded before any arithmetic, so each thread has that many 16-byte loads in flight
// and each value of u crosses DRAM once (halo rows come from L2).
template <int DIMS>
constexpr int strip = DIMS == 2 ? 8 : 4;

template <class T>
struct SweepArgs {
  const T* in;  // node (0,0,0)
  T* out;       // same layout as in
  std::int64_t pitch, plane;
  const T* rhs;  // may be null: b = b_const
  std::int64_t rpitch, rplane;
  const std::uint8_t* mask;  // may be null: every active node is free
  std::int64_t mpitch, mplane;
  Box active;
  int xbase;  // first pack's x: active.lo[0] rounded down to a pack
  T cw, ce, cs, cn, cb, ct, b_const, inv_cp, weight;
  double* max_update;
};

// 2D: the block's four warps sit side by side in x and march together along y.
// 3D: the four warps take four consecutive y rows and march along z; the y neighbours
// are plain loads that the sibling warps' lines mostly serve from L1.
template <class T, int DIMS, bool MASK, bool RHS, bool MEASURE>
__global__ void __launch_bounds__(warp* warps) jacobi_kernel(const SweepArgs<T> a) {
  constexpr int V = pack_width<T>;
  constexpr int H = strip<DIMS>;
  const int lane = int(threadIdx.x);
  const Box& b = a.active;
  int xs, j, mlo, mhi, mstep;
  std::int64_t ms;  // stride of the march axis
  if constexpr (DIMS == 2) {
    xs = a.xbase + ((int(blockIdx.x) * warps + int(threadIdx.y)) * warp + lane) * V;
    j = 0;
    mlo = b.lo[1] + int(blockIdx.y) * H, mhi = b.hi[1], mstep = int(gridDim.y) * H;
    ms = a.pitch;
  } else {
    xs = a.xbase + (int(blockIdx.x) * warp + lane) * V;
    j = b.lo[1] + int(blockIdx.y) * warps + int(threadIdx.y);
    mlo = b.lo[2] + int(blockIdx.z) * H, mhi = b.hi[2], mstep = int(gridDim.z) * H;
    ms = a.plane;
  }
  const bool warp_on = DIMS == 2 || j <= b.hi[1];  // uniform across the warp
  // Lanes past the box still load (when in bounds) so their neighbours can shuffle.
  const bool lane_loads = xs <= b.hi[0] + 1;
  const bool need_east = xs + V <= b.hi[0] + 1;
  const bool full = xs >= b.lo[0] && xs + V - 1 <= b.hi[0];
  const std::int64_t col = xs + a.pitch * j;  // (xs, j, 0) or (xs, 0, 0)
  double local = 0;

  const bool own_lane = xs <= b.hi[0];  // holds at least one node that may update
  for (int m0 = mlo; warp_on && m0 <= mhi; m0 += mstep) {
    // Every load of the strip is issued before the first store (the compiler will not
    // move loads above stores it cannot prove disjoint), so each thread has all of its
    // strip's loads in flight at once.
    Pack<T> c[H + 2], rhs[H], lo[H], hi[H];
    T west[H], east[H];
    unsigned bits[H];
#pragma unroll
    for (int r = 0; r < H + 2; ++r) {
      const int m = m0 - 1 + r;
      c[r] = Pack<T>{};
      if (lane_loads && m <= mhi + 1) c[r] = load_ro(a.in + col + ms * m);
    }
#pragma unroll
    for (int r = 0; r < H; ++r) {
      const int m = m0 + r;
      const std::int64_t at = col + ms * m;
      west[r] = east[r] = T(0);
      rhs[r] = lo[r] = hi[r] = Pack<T>{};
      bits[r] = 0;
      if (m <= mhi) {
        if (lane == 0 && lane_loads) west[r] = __ldg(a.in + at - 1);
        if (lane == warp - 1 && need_east) east[r] = __ldg(a.in + at + V);
        if (own_lane) {
          // The other in-plane neighbours (3D: y - 1, y + 1).
          if constexpr (DIMS == 3)
            lo[r] = load_ro(a.in + at - a.pitch), hi[r] = load_ro(a.in + at + a.pitch);
          if constexpr (RHS)
            rhs[r] = load_ro(a.rhs + xs + (DIMS == 2 ? a.rpitch * m : a.rpitch * j + a.rplane * m));
          if constexpr (MASK)
            bits[r] = load_mask<T>(a.mask + xs +
                                   (DIMS == 2 ? a.mpitch * m : a.mpitch * j + a.mplane * m));
        }
      }
    }
#pragma unroll
    for (int r = 0; r < H; ++r) {
      const int m = m0 + r;
      if (m > mhi) break;  // uniform across the warp
      const Pack<T>& u = c[r + 1];
      const T w_in = __shfl_up_sync(0xffffffffu, u.v[V - 1], 1);
      const T e_in = __shfl_down_sync(0xffffffffu, u.v[0], 1);
      const T wv = lane == 0 ? west[r] : w_in;
      const T ev = lane == warp - 1 ? east[r] : e_in;
      if (!own_lane) continue;
      const std::int64_t at = col + ms * m;
      Pack<T> o;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const T old = u.v[e];
        const T W = e == 0 ? wv : u.v[e - 1];
        const T E = e == V - 1 ? ev : u.v[e + 1];
        T s;
        if constexpr (DIMS == 2) {
          s = a.cw * W + a.ce * E + a.cs * c[r].v[e] + a.cn * c[r + 2].v[e];
        } else {
          s = a.cw * W + a.ce * E + a.cs * lo[r].v[e] + a.cn * hi[r].v[e];
          s += a.cb * c[r].v[e] + a.ct * c[r + 2].v[e];
        }
        const T bp = RHS ? rhs[r].v[e] : a.b_const;
        const T next = old + a.weight * ((bp + s) * a.inv_cp - old);
        const bool free = !MASK || mask_free(bits[r], e);
        o.v[e] = free ? next : old;
        if constexpr (MEASURE) {
          const int x = xs + e;
          if (free && x >= b.lo[0] && x <= b.hi[0]) {
            const double d = abs_diff(double(next), double(old));
            if (!(d <= local)) local = d;
          }
        }
      }
      if (full) {
        store(a.out + at, o);
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e)
          if (xs + e >= b.lo[0] && xs + e <= b.hi[0]) a.out[at + e] = o.v[e];
      }
    }
  }
  if constexpr (MEASURE) block_max_to(local, a.max_update);
}

template <class T, int DIMS, bool MASK, bool RHS, bool MEASURE>
void launch(const SweepArgs<T>& a) {
  constexpr int V = pack_width<T>;
  const Box& b = a.active;
  const long long packs = (b.hi[0] - a.xbase) / V + 1;
  dim3 grid;
  if constexpr (DIMS == 2) {
    grid = dim3(blocks_for(packs, warp * warps, 1LL << 30), blocks_for(b.extent(1), strip<2>), 1);
  } else {
    grid = dim3(blocks_for(packs, warp, 1LL << 30), blocks_for(b.extent(1), warps),
                blocks_for(b.extent(2), strip<3>));
  }
  jacobi_kernel<T, DIMS, MASK, RHS, MEASURE><<<grid, dim3(warp, warps)>>>(a);
  cuda::check_launch("tuned Jacobi sweep");
}

template <class T, int DIMS>
void dispatch(const SweepArgs<T>& a) {
  detail::with_flags(
      [&](auto mask, auto rhs, auto measure) {
        launch<T, DIMS, decltype(mask)::value, decltype(rhs)::value, decltype(measure)::value>(a);
      },
      a.mask != nullptr, a.rhs != nullptr, a.max_update != nullptr);
}

bool aligned(const void* p, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

}  // namespace

template <class T>
bool jacobi_applies(const StencilOperator<T>& op) {
  // Periodic sides need their images refreshed between sweeps: the generic path does it.
  return op.uniform && op.device == Device::cuda && (op.grid.dims == 2 || op.grid.dims == 3) &&
         op.periodic == 0;
}

namespace {

// The packed loads' needs: 16-byte aligned rows from x = 0 (the view's data pointer) in
// every field the sweep reads or writes, and the same pitch in and out.
template <class T>
bool fits(const StencilOperator<T>& op, const FieldView<const T>& iv,
          const FieldView<const T>& ov) {
  constexpr int V = pack_width<T>;
  bool ok = ov.pitch == iv.pitch && ov.plane == iv.plane && aligned(iv.data, 16) &&
            aligned(ov.data, 16) && (iv.pitch * sizeof(T)) % 16 == 0 &&
            (iv.plane * sizeof(T)) % 16 == 0 && op.active.lo[0] >= 0;
  if (!op.rhs.empty()) {
    const FieldView<const T> r = op.rhs.cview();
    ok = ok && aligned(r.data, 16) && (r.pitch * sizeof(T)) % 16 == 0 &&
         (r.plane * sizeof(T)) % 16 == 0;
  }
  if (!op.mask.empty()) {
    const FieldView<const std::uint8_t> m = op.mask.cview();
    ok = ok && aligned(m.data, V) && m.pitch % V == 0 && m.plane % V == 0;
  }
  return ok;
}

}  // namespace

template <class T>
bool jacobi_layout_fits(const StencilOperator<T>& op, const Field<T>& u) {
  return fits(op, u.cview(), u.cview());
}

template <class T>
void jacobi_sweep(const StencilOperator<T>& op, const Field<T>& in, Field<T>& out, T weight,
                  double* max_update, const Box* region, bool reset_max) {
  require(jacobi_applies(op), "the tuned Jacobi sweep needs a uniform operator on the GPU");
  require(in.device() == Device::cuda && out.device() == Device::cuda,
          "the tuned Jacobi sweep needs its fields on the GPU");
  if (max_update && reset_max)
    cuda::check(cudaMemsetAsync(max_update, 0, sizeof(double)), "update reset");
  const Box box = region ? op.active.intersect(*region) : op.active;
  if (box.empty()) return;
  SweepArgs<T> a{};
  const FieldView<const T> iv = in.cview();
  const FieldView<T> ov = out.view();
  a.in = iv.data, a.out = ov.data, a.pitch = iv.pitch, a.plane = iv.plane;
  // Fields laid out by Layout have 128-byte aligned rows, which the 16-byte loads need.
  require(fits(op, iv, FieldView<const T>(ov)),
          "the tuned Jacobi sweep needs fields laid out by Layout (16-byte aligned rows from "
          "x = 0)");
  if (!op.rhs.empty()) {
    const FieldView<const T> r = op.rhs.cview();
    a.rhs = r.data, a.rpitch = r.pitch, a.rplane = r.plane;
  }
  if (!op.mask.empty()) {
    const FieldView<const std::uint8_t> m = op.mask.cview();
    a.mask = m.data, a.mpitch = m.pitch, a.mplane = m.plane;
  }
  constexpr int V = pack_width<T>;
  a.active = box;
  a.xbase = box.lo[0] / V * V;
  a.cw = op.cw, a.ce = op.ce, a.cs = op.cs, a.cn = op.cn, a.cb = op.cb, a.ct = op.ct;
  a.b_const = op.b_const;
  a.inv_cp = T(1) / op.cp;
  a.weight = weight;
  a.max_update = max_update;
  if (op.grid.dims == 2)
    dispatch<T, 2>(a);
  else
    dispatch<T, 3>(a);
}

template bool jacobi_applies<float>(const StencilOperator<float>&);
template bool jacobi_applies<double>(const StencilOperator<double>&);
template bool jacobi_layout_fits<float>(const StencilOperator<float>&, const Field<float>&);
template bool jacobi_layout_fits<double>(const StencilOperator<double>&, const Field<double>&);
template void jacobi_sweep<float>(const StencilOperator<float>&, const Field<float>&, Field<float>&,
                                  float, double*, const Box*, bool);
template void jacobi_sweep<double>(const StencilOperator<double>&, const Field<double>&,
                                   Field<double>&, double, double*, const Box*, bool);

}  // namespace gridsolve::tuned
