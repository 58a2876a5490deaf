// Red-black SOR with each colour in its own array: unit-stride neighbour reads, 16-byte
// loads, column strips in registers; uniform and per-node (general) coefficients.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "gridsolve/core/sum_of_squares.hpp"
#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/solve/cuda/stencil_tiles.cuh"
#include "gridsolve/solve/cuda/tuned_kernels.hpp"

namespace gridsolve::tuned {

namespace detail {

// Colour layout. Node (i, j, k) has colour c = (i + j + k) & 1 and sits at row position
// ir = (i + 1) >> 1 of row (j, k) of array c, for i in [-1, n0] (ghosts included), so
// X = i + 1 = 2 ir + q with q = (c + j + k + 1) & 1. Its west and east neighbours are at
// ir - 1 + q and ir + q of the other colour's row (j, k); the neighbours across rows and
// planes have the same X and hence the same ir. Rows are padded like Layout's: position
// 0 is 128-byte aligned and one pack of slack lies on each side.
template <class T>
struct ColourView {
  T* p = nullptr;  // position 0 of row (j = 0, k = 0)
  std::int64_t pitch = 0, plane = 0;
  GRIDSOLVE_HD T& operator()(int ir, int j, int k) const { return p[ir + pitch * j + plane * k]; }
};

}  // namespace detail

namespace {

using namespace detail;

// Rows (2D) or planes (3D) per thread and strip. The general kernel holds 4 (2D) or 6 (3D)
// coefficient packs per row as well, so it takes shorter strips to stay clear of spills;
// its loads in flight per thread (about 30 packs) still cover the memory latency.
template <int DIMS, bool GENERAL>
constexpr int strip = GENERAL ? (DIMS == 2 ? 4 : 2) : (DIMS == 2 ? 8 : 4);

// Neighbour coefficients per node: w, e, s, n (and b, t in 3D).
template <int DIMS>
constexpr int faces = DIMS == 2 ? 4 : 6;

template <class T>
struct HalfArgs {
  T* own;                     // the colour being updated
  const T* other;             // the colour it reads
  std::int64_t pitch, plane;  // shared by every colour array, mask included
  const T* rhs;               // colour `colour`, may be null; general: b_P / a_P
  const std::uint8_t* mask;   // colour `colour`, may be null; general: always null
  // General operators, colour `colour`: a_nb / a_P toward w, e, s, n, b, t, with zero
  // coefficients and b_P / a_P = u_P at nodes that are not updated (see detail::split_general).
  const T* nb[6];
  Box active;
  int colour;
  int irbase, irhi;  // packs start at irbase; positions beyond irhi hold no active node
  T cw, ce, cs, cn, cb, ct, b_const, inv_cp, omega;
  double* max_update;
};

// One half-sweep. Per thread: the other colour's rows m0-1 .. m0+H (2D: rows, 3D:
// planes) are loaded up front, then each row of the own colour is read, updated and
// written. Traffic per half-sweep: other colour read once, own colour read and written
// once (halo rows hit L2); general operators add their own colour's coefficients and
// b_P / a_P, read once.
template <class T, int DIMS, bool MASK, bool RHS, bool MEASURE, bool GENERAL>
__global__ void __launch_bounds__(warp* warps) half_sweep_kernel(const HalfArgs<T> a) {
  constexpr int V = pack_width<T>;
  constexpr int H = strip<DIMS, GENERAL>;
  constexpr int F = GENERAL ? faces<DIMS> : 1;
  const int lane = int(threadIdx.x);
  const Box& b = a.active;
  int irs, j, mlo, mhi, mstep;
  std::int64_t ms;
  if constexpr (DIMS == 2) {
    irs = a.irbase + ((int(blockIdx.x) * warps + int(threadIdx.y)) * warp + lane) * V;
    j = 0;
    mlo = b.lo[1] + int(blockIdx.y) * H, mhi = b.hi[1], mstep = int(gridDim.y) * H;
    ms = a.pitch;
  } else {
    irs = a.irbase + (int(blockIdx.x) * warp + lane) * V;
    j = b.lo[1] + int(blockIdx.y) * warps + int(threadIdx.y);
    mlo = b.lo[2] + int(blockIdx.z) * H, mhi = b.hi[2], mstep = int(gridDim.z) * H;
    ms = a.plane;
  }
  const bool warp_on = DIMS == 2 || j <= b.hi[1];
  const bool lane_loads = irs <= a.irhi + 1;
  const bool need_east = irs + V <= a.irhi + 1;
  const std::int64_t col = irs + a.pitch * j;
  double local = 0;

  const bool own_lane = irs <= a.irhi;  // holds at least one position that may update
  for (int m0 = mlo; warp_on && m0 <= mhi; m0 += mstep) {
    // Every load of the strip is issued before the first store: the compiler cannot
    // move a load of the own colour above a store to it, and a load per row waited on
    // one by one would leave the memory system idle.
    Pack<T> c[H + 2], u[H], rhs[H], lo[H], hi[H], k[F][H];
    T prev[H], next[H];
    unsigned bits[H];
#pragma unroll
    for (int r = 0; r < H + 2; ++r) {
      const int m = m0 - 1 + r;
      c[r] = Pack<T>{};
      if (lane_loads && m <= mhi + 1) c[r] = load_ro(a.other + col + ms * m);
    }
#pragma unroll
    for (int r = 0; r < H; ++r) {
      const int m = m0 + r;
      const std::int64_t at = col + ms * m;
      prev[r] = next[r] = T(0);
      u[r] = rhs[r] = lo[r] = hi[r] = Pack<T>{};
#pragma unroll
      for (int f = 0; f < F; ++f) k[f][r] = Pack<T>{};
      bits[r] = 0;
      if (m <= mhi) {
        if (lane == 0 && lane_loads) prev[r] = __ldg(a.other + at - 1);
        if (lane == warp - 1 && need_east) next[r] = __ldg(a.other + at + V);
        if (own_lane) {
          u[r] = load(a.own + at);
          if constexpr (DIMS == 3)
            lo[r] = load_ro(a.other + at - a.pitch), hi[r] = load_ro(a.other + at + a.pitch);
          if constexpr (RHS) rhs[r] = load_ro(a.rhs + at);
          if constexpr (MASK) bits[r] = load_mask<T>(a.mask + at);
          if constexpr (GENERAL) {
#pragma unroll
            for (int f = 0; f < F; ++f) k[f][r] = load_ro(a.nb[f] + at);
          }
        }
      }
    }
#pragma unroll
    for (int r = 0; r < H; ++r) {
      const int m = m0 + r;
      if (m > mhi) break;  // uniform across the warp
      const Pack<T>& o = c[r + 1];
      const T p_in = __shfl_up_sync(0xffffffffu, o.v[V - 1], 1);
      const T n_in = __shfl_down_sync(0xffffffffu, o.v[0], 1);
      const T pv = lane == 0 ? prev[r] : p_in;
      const T nv = lane == warp - 1 ? next[r] : n_in;
      if (!own_lane) continue;
      const int jj = DIMS == 2 ? m : j, kk = DIMS == 2 ? 0 : m;
      const int q = (a.colour + jj + kk + 1) & 1;
      Pack<T> out;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const T old = u[r].v[e];
        // q = 1: west at ir, east at ir + 1; q = 0: west at ir - 1, east at ir.
        const T W = q ? o.v[e] : (e == 0 ? pv : o.v[e - 1]);
        const T E = q ? (e == V - 1 ? nv : o.v[e + 1]) : o.v[e];
        const T S = DIMS == 2 ? c[r].v[e] : lo[r].v[e];
        const T N = DIMS == 2 ? c[r + 2].v[e] : hi[r].v[e];
        // Same order of terms as StencilView::neighbours.
        T s, nx;
        if constexpr (GENERAL) {
          s = k[0][r].v[e] * W + k[1][r].v[e] * E + k[2][r].v[e] * S + k[3][r].v[e] * N;
          if constexpr (DIMS == 3) s += k[4][r].v[e] * c[r].v[e] + k[5][r].v[e] * c[r + 2].v[e];
          nx = old + a.omega * ((rhs[r].v[e] + s) - old);
        } else {
          s = a.cw * W + a.ce * E + a.cs * S + a.cn * N;
          if constexpr (DIMS == 3) s += a.cb * c[r].v[e] + a.ct * c[r + 2].v[e];
          const T bp = RHS ? rhs[r].v[e] : a.b_const;
          nx = old + a.omega * ((bp + s) * a.inv_cp - old);
        }
        const int i = 2 * (irs + e) + q - 1;
        // General operators need no mask: a node that is not updated has zero
        // coefficients and b_P / a_P equal to its value, so nx == old exactly.
        const bool update = i >= b.lo[0] && i <= b.hi[0] && (!MASK || mask_free(bits[r], e));
        // Positions that are not updated get their own value back: this thread is the
        // only one touching them in this launch.
        out.v[e] = update ? nx : old;
        if constexpr (MEASURE) {
          if (update) {
            const double d = abs_diff(double(nx), double(old));
            if (!(d <= local)) local = d;
          }
        }
      }
      store(a.own + col + ms * m, out);
    }
  }
  if constexpr (MEASURE) block_max_to(local, a.max_update);
}

template <class T, int DIMS, bool MASK, bool RHS, bool MEASURE, bool GENERAL = false>
void launch(const HalfArgs<T>& a) {
  constexpr int V = pack_width<T>;
  constexpr int H = strip<DIMS, GENERAL>;
  const Box& b = a.active;
  const long long packs = (a.irhi - a.irbase) / V + 1;
  dim3 grid;
  if constexpr (DIMS == 2) {
    grid = dim3(blocks_for(packs, warp * warps, 1LL << 30), blocks_for(b.extent(1), H), 1);
  } else {
    grid = dim3(blocks_for(packs, warp, 1LL << 30), blocks_for(b.extent(1), warps),
                blocks_for(b.extent(2), H));
  }
  half_sweep_kernel<T, DIMS, MASK, RHS, MEASURE, GENERAL><<<grid, dim3(warp, warps)>>>(a);
  cuda::check_launch("coloured SOR half-sweep");
}

template <class T, int DIMS>
void dispatch(const HalfArgs<T>& a, bool general) {
  const bool measure = a.max_update != nullptr;
  if (general) {  // the mask is folded into the coefficients; b is always a field
    detail::with_flags([&](auto m) { launch<T, DIMS, false, true, decltype(m)::value, true>(a); },
                       measure);
    return;
  }
  detail::with_flags(
      [&](auto mask, auto rhs, auto m) {
        launch<T, DIMS, decltype(mask)::value, decltype(rhs)::value, decltype(m)::value>(a);
      },
      a.mask != nullptr, a.rhs != nullptr, measure);
}

}  // namespace

namespace detail {
// Splits a natural-layout field, ghosts included, into the two colour arrays. (A named
// namespace: the device lambda's enclosing function needs external linkage.)
template <class U>
void split_colours(const Field<U>& f, int dims, ColourView<U> red, ColourView<U> black) {
  const FieldView<const U> src = f.cview();
  const std::array<int, 3> n = f.layout().n;
  const Box all{{-1, -1, dims == 3 ? -1 : 0}, {n[0], n[1], dims == 3 ? n[2] : 0}};
  for_each(Device::cuda, all, [=] GRIDSOLVE_HD(int i, int j, int k) {
    (((i + j + k) & 1) ? black : red)((i + 1) >> 1, j, k) = src(i, j, k);
  });
}

// A general operator by colour, each row divided by its diagonal: a_nb / a_P toward
// w, e, s, n, b, t, b_P / a_P, and a_P for the residual. Nodes that are not updated (outside
// op.active, ghosts, masked) get zero coefficients, b_P / a_P = u_P and a_P = 0, so the
// sweep leaves them as they are without reading a mask and the residual skips them.
template <class T>
struct GeneralColours {
  ColourView<T> nb[2][6], b[2], ap[2];
};

template <class T>
void split_general(const StencilView<T>& a, const Field<T>& u, int dims, GeneralColours<T> g) {
  const FieldView<const T> src = u.cview();
  const std::array<int, 3> n = u.layout().n;
  const Box all{{-1, -1, dims == 3 ? -1 : 0}, {n[0], n[1], dims == 3 ? n[2] : 0}};
  const int nf = dims == 3 ? 6 : 4;
  for_each(Device::cuda, all, [=] GRIDSOLVE_HD(int i, int j, int k) {
    const int c = (i + j + k) & 1, ir = (i + 1) >> 1;
    if (a.active.contains(i, j, k) && a.is_free(i, j, k)) {
      const T d = a.diag(i, j, k);
      for (int f = 0; f < nf; ++f) g.nb[c][f](ir, j, k) = a.coefficient(f, i, j, k) / d;
      g.b[c](ir, j, k) = a.b(i, j, k) / d;
      g.ap[c](ir, j, k) = d;
    } else {
      for (int f = 0; f < nf; ++f) g.nb[c][f](ir, j, k) = T(0);
      g.b[c](ir, j, k) = src(i, j, k);
      g.ap[c](ir, j, k) = T(0);
    }
  });
}

// ||b - A u||_2 over the unknowns of a general operator split by split_general.
template <class T>
double general_residual_norm(const GeneralColours<const T>& g, ColourView<const T> red,
                             ColourView<const T> black, const Box& active, int dims) {
  const bool three = dims == 3;
  const SumOfSquares sum = reduce<SumOfSquares>(
      Device::cuda, active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> SumOfSquares {
        const int c = (i + j + k) & 1, ir = (i + 1) >> 1;
        const T d = g.ap[c](ir, j, k);
        if (d == T(0)) return SumOfSquares{};  // not an unknown
        const ColourView<const T>& own = c ? black : red;
        const ColourView<const T>& other = c ? red : black;
        const ColourView<const T>* a = g.nb[c];
        // b - A u = a_P (b / a_P + sum (a_nb / a_P) u_nb - u_P), neighbours in the order
        // of StencilView::neighbours.
        T nb = a[0](ir, j, k) * other(i >> 1, j, k) + a[1](ir, j, k) * other((i + 2) >> 1, j, k) +
               a[2](ir, j, k) * other(ir, j - 1, k) + a[3](ir, j, k) * other(ir, j + 1, k);
        if (three)
          nb += a[4](ir, j, k) * other(ir, j, k - 1) + a[5](ir, j, k) * other(ir, j, k + 1);
        const double r = double(d * (g.b[c](ir, j, k) + nb - own(ir, j, k)));
        return SumOfSquares::of(r);
      },
      SumOp{}, SumOfSquares{});
  return sum.norm();  // scaled: large finite data do not overflow
}
}  // namespace detail

template <class T>
bool coloured_sor_applies(const StencilOperator<T>& op) {
  return op.device == Device::cuda && (op.grid.dims == 2 || op.grid.dims == 3) &&
         !op.active.empty() && op.active.lo[0] >= 0 && op.periodic == 0;
}

template <class T>
struct ColouredSor<T>::State {
  int dims = 2;
  Box active;
  std::int64_t pitch = 0, plane = 0, origin = 0, size = 0;
  Buffer<T> u[2], rhs[2];
  Buffer<std::uint8_t> mask[2];
  bool has_rhs = false, has_mask = false;
  // General operators: rhs holds b_P / a_P; nb the scaled neighbour coefficients (4 in
  // 2D, 6 in 3D) and ap the diagonal, by colour (detail::split_general).
  bool general = false;
  Buffer<T> nb[2][6], ap[2];
  T cw = 0, ce = 0, cs = 0, cn = 0, cb = 0, ct = 0, cp = 0, b_const = 0;
  Buffer<double> max_update;

  template <class U>
  ColourView<U> view(const Buffer<U>& buf) const {
    return ColourView<U>{buf.data() + origin, pitch, plane};
  }

  template <class U>
  ColourView<const U> cview(const Buffer<U>& buf) const {
    return ColourView<const U>{buf.data() ? buf.data() + origin : nullptr, pitch, plane};
  }

  template <class U>
  void split(const Field<U>& f, Buffer<U>* dst) const {
    split_colours(f, dims, view(dst[0]), view(dst[1]));
  }

  HalfArgs<T> args(int colour, T omega, double* measure) const {
    constexpr int V = pack_width<T>;
    HalfArgs<T> a{};
    a.own = u[colour].data() + origin;
    a.other = u[1 - colour].data() + origin;
    a.pitch = pitch, a.plane = plane;
    a.rhs = has_rhs ? rhs[colour].data() + origin : nullptr;
    a.mask = has_mask ? mask[colour].data() + origin : nullptr;
    a.active = active;
    a.colour = colour;
    a.irbase = ((active.lo[0] + 1) >> 1) / V * V;
    a.irhi = (active.hi[0] + 1) >> 1;
    a.cw = cw, a.ce = ce, a.cs = cs, a.cn = cn, a.cb = cb, a.ct = ct;
    a.b_const = b_const;
    a.inv_cp = T(1) / cp;
    a.omega = omega;
    a.max_update = measure;
    for (int f = 0; f < 6; ++f)
      a.nb[f] = general && nb[colour][f].data() ? nb[colour][f].data() + origin : nullptr;
    return a;
  }

  void half_sweep(int colour, T omega, double* measure) const {
    const HalfArgs<T> a = args(colour, omega, measure);
    if (dims == 2)
      dispatch<T, 2>(a, general);
    else
      dispatch<T, 3>(a, general);
  }
};

template <class T>
ColouredSor<T>::ColouredSor(const StencilOperator<T>& op, const Field<T>& u)
    : s_(std::make_unique<State>()) {
  require(coloured_sor_applies(op), "the coloured SOR kernel needs a 2D or 3D operator on the GPU");
  require(u.device() == Device::cuda, "the coloured SOR kernel needs the field on the GPU");
  State& s = *s_;
  s.dims = op.grid.dims;
  s.active = op.active;
  s.cw = op.cw, s.ce = op.ce, s.cs = op.cs, s.cn = op.cn, s.cb = op.cb, s.ct = op.ct;
  s.cp = op.cp, s.b_const = op.b_const;
  constexpr std::int64_t V = pack_width<T>;
  const std::int64_t align = 128 / sizeof(T);
  const std::array<int, 3> n = u.layout().n;
  const std::int64_t positions = ((n[0] + 1) >> 1) + 1;  // ir = 0 .. (n0 + 1) >> 1
  s.pitch = (align + positions + 2 * V + align - 1) / align * align;
  s.plane = s.pitch * (n[1] + 2);
  const std::int64_t planes = s.dims == 3 ? n[2] + 2 : 1;
  s.origin = align + s.pitch + (s.dims == 3 ? s.plane : 0);
  s.size = s.plane * planes;
  // Zeroed first: the padding beyond each row is read (and discarded) by the last packs.
  auto zeroed = [&] {
    Buffer<T> b(Device::cuda, std::size_t(s.size));
    zero_bytes(Device::cuda, b.data(), std::size_t(s.size) * sizeof(T));
    return b;
  };
  for (int c = 0; c < 2; ++c) s.u[c] = zeroed();
  s.split(u, s.u);
  if (!op.uniform) {
    s.general = true;
    s.has_rhs = true;
    const int nf = s.dims == 3 ? 6 : 4;
    GeneralColours<T> g;
    for (int c = 0; c < 2; ++c) {
      s.rhs[c] = zeroed();
      s.ap[c] = zeroed();
      g.b[c] = s.view(s.rhs[c]);
      g.ap[c] = s.view(s.ap[c]);
      for (int f = 0; f < nf; ++f) {
        s.nb[c][f] = zeroed();
        g.nb[c][f] = s.view(s.nb[c][f]);
      }
    }
    split_general(op.view(), u, s.dims, g);
  } else if (!op.rhs.empty()) {
    s.has_rhs = true;
    for (int c = 0; c < 2; ++c) {
      s.rhs[c] = Buffer<T>(Device::cuda, std::size_t(s.size));
      zero_bytes(Device::cuda, s.rhs[c].data(), std::size_t(s.size) * sizeof(T));
    }
    s.split(op.rhs, s.rhs);
  }
  if (!op.mask.empty()) {
    s.has_mask = true;
    for (int c = 0; c < 2; ++c) {
      s.mask[c] = Buffer<std::uint8_t>(Device::cuda, std::size_t(s.size));
      zero_bytes(Device::cuda, s.mask[c].data(), std::size_t(s.size));
    }
    s.split(op.mask, s.mask);
  }
  s.max_update = Buffer<double>(Device::cuda, 1);
}

template <class T>
ColouredSor<T>::~ColouredSor() = default;

template <class T>
void ColouredSor<T>::iterate(T omega, int count) {
  for (int it = 0; it < count; ++it) {
    s_->half_sweep(0, omega, nullptr);
    s_->half_sweep(1, omega, nullptr);
  }
}

template <class T>
double ColouredSor<T>::iterate_measuring_update(T omega) {
  double* m = s_->max_update.data();
  cuda::check(cudaMemsetAsync(m, 0, sizeof(double)), "update reset");
  s_->half_sweep(0, omega, m);
  s_->half_sweep(1, omega, m);
  double host = 0;
  copy_bytes(&host, Device::cpu, m, Device::cuda, sizeof(double));
  return host;
}

template <class T>
double ColouredSor<T>::residual_norm() const {
  const State& s = *s_;
  if (s.general) {
    GeneralColours<const T> g;
    for (int c = 0; c < 2; ++c) {
      g.b[c] = s.cview(s.rhs[c]);
      g.ap[c] = s.cview(s.ap[c]);
      for (int f = 0; f < 6; ++f) g.nb[c][f] = s.cview(s.nb[c][f]);
    }
    return general_residual_norm(g, s.cview(s.u[0]), s.cview(s.u[1]), s.active, s.dims);
  }
  const ColourView<const T> red{s.u[0].data() + s.origin, s.pitch, s.plane};
  const ColourView<const T> black{s.u[1].data() + s.origin, s.pitch, s.plane};
  const ColourView<const T> rred{s.has_rhs ? s.rhs[0].data() + s.origin : nullptr, s.pitch,
                                 s.plane};
  const ColourView<const T> rblack{s.has_rhs ? s.rhs[1].data() + s.origin : nullptr, s.pitch,
                                   s.plane};
  const ColourView<const std::uint8_t> mred{s.has_mask ? s.mask[0].data() + s.origin : nullptr,
                                            s.pitch, s.plane};
  const ColourView<const std::uint8_t> mblack{s.has_mask ? s.mask[1].data() + s.origin : nullptr,
                                              s.pitch, s.plane};
  const bool has_rhs = s.has_rhs, has_mask = s.has_mask, three = s.dims == 3;
  const T cw = s.cw, ce = s.ce, cs = s.cs, cn = s.cn, cb = s.cb, ct = s.ct, cp = s.cp,
          b_const = s.b_const;
  const SumOfSquares sum = reduce<SumOfSquares>(
      Device::cuda, s.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> SumOfSquares {
        const bool black_node = (i + j + k) & 1;
        const int ir = (i + 1) >> 1;
        if (has_mask && (black_node ? mblack : mred)(ir, j, k) != 0) return SumOfSquares{};
        const ColourView<const T>& own = black_node ? black : red;
        const ColourView<const T>& other = black_node ? red : black;
        // Same order of operations as StencilView::residual.
        T nb = cw * other(i >> 1, j, k) + ce * other((i + 2) >> 1, j, k) +
               cs * other(ir, j - 1, k) + cn * other(ir, j + 1, k);
        if (three) nb += cb * other(ir, j, k - 1) + ct * other(ir, j, k + 1);
        const T bp = has_rhs ? (black_node ? rblack : rred)(ir, j, k) : b_const;
        const double r = double(bp + nb - cp * own(ir, j, k));
        return SumOfSquares::of(r);
      },
      SumOp{}, SumOfSquares{});
  return sum.norm();  // scaled: large finite data do not overflow
}

template <class T>
void ColouredSor<T>::store(Field<T>& u) const {
  require(u.device() == Device::cuda, "the coloured SOR kernel stores into a field on the GPU");
  const State& s = *s_;
  const ColourView<const T> red{s.u[0].data() + s.origin, s.pitch, s.plane};
  const ColourView<const T> black{s.u[1].data() + s.origin, s.pitch, s.plane};
  const FieldView<T> v = u.view();
  for_each(Device::cuda, s.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
    v(i, j, k) = (((i + j + k) & 1) ? black : red)((i + 1) >> 1, j, k);
  });
}

template bool coloured_sor_applies<float>(const StencilOperator<float>&);
template bool coloured_sor_applies<double>(const StencilOperator<double>&);
template class ColouredSor<float>;
template class ColouredSor<double>;

}  // namespace gridsolve::tuned
