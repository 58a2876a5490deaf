// Red-black SOR with several iterations fused into one pass over memory, for 2D operators
// whose rows mostly repeat along y (axisymmetric and other r- or x-dependent operators).
//
// Traffic is what limits SOR on a GPU. The colour-reordered kernel moves each colour
// array three times per iteration and, for a general operator, five coefficient words
// per node. Here a pass reads u once (tiles with a halo, mostly served by L2), makes up
// to three iterations on it in shared memory, and writes it once into a second array:
//  * a tile's k-th half-sweep (red, black, red, ...) updates the tile and a ring around it
//    that shrinks by one node per half-sweep, so that the last leaves exactly the tile
//    correct. The ring's values are computed again by the neighbouring tiles, from the
//    same values, so the result is exactly that many red-black iterations;
//  * coefficients are not streamed: each column's row (divided by its diagonal) is kept
//    once, taken from a node of that column, and every node whose row is bit-for-bit
//    that template with a zero right-hand side is marked regular in a byte per node. The
//    rest (boundaries, interfaces, sources) read their own stored row, a small fraction
//    of the nodes and of the traffic.
// Three iterations a pass move about (1 + 1 + 1/8) / 3 = 0.7 words per node and iteration.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "gridsolve/core/sum_of_squares.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/solve/cuda/stencil_tiles.cuh"
#include "gridsolve/solve/cuda/tuned_kernels.hpp"

namespace gridsolve::tuned {

namespace detail {

enum NodeKind : std::uint8_t { regular = 0, own_row = 1, fixed = 2 };

template <class T>
struct FusedArgs {
  FieldView<const T> in;
  FieldView<T> out;
  FieldView<const std::uint8_t> kind;
  // Nodes marked own_row: their row's index in `rows`, which holds a_nb / a_P toward
  // w, e, s, n, b_P / a_P and a_P, six values a row.
  FieldView<const std::int32_t> own;
  const T* rows;
  // Column templates, indexed by i + 1 (i = -1 .. n0): a_nb / a_P toward w, e, s, n.
  const T* col[4];
  Box active;
  int n0, n1;
  T omega;
};

// A block takes a tile of TY rows and 64 - 4 STEPS columns and makes STEPS iterations
// on it, which needs a halo of 2 STEPS nodes: the k-th half-sweep (red, black, red, ...)
// updates the tile and a ring 2 STEPS - 1 - k nodes wide, from values the earlier
// half-sweeps left correct there. Shared memory holds the tile with its halo split by
// colour: pair p of tile row r (window columns 2p and 2p + 1, one node of each colour)
// sits at [r][p] of the red and of the black array, so that the nodes a half-sweep
// updates, and the neighbours they read, are consecutive. Lane p of every warp owns pair
// p (one aligned 2-element load per row; the pair's two column rows stay in its
// registers) and the warps share the rows.
constexpr int kWarps = 8;
constexpr int kPairs = 32;  // pairs per window row: 64 columns

template <int STEPS>
constexpr int tile_cols = 2 * kPairs - 4 * STEPS;

template <class T, int TY, int STEPS>
__global__ void __launch_bounds__(32 * kWarps, 5) fused_iteration(FusedArgs<T> a, int i_origin) {
  using P2 = typename Vector2<T>::type;
  constexpr int G = 2 * STEPS, TX = tile_cols<STEPS>, H = TY + 2 * G;
  static_assert(kWarps % 2 == 0, "a lane's rows must keep their parity");
  __shared__ T red[H][kPairs], black[H][kPairs];
  __shared__ std::uint8_t kred[H][kPairs], kblack[H][kPairs];
  const int p = int(threadIdx.x) & 31, w = int(threadIdx.x) >> 5;
  const int i0 = i_origin + int(blockIdx.x) * TX, j0 = a.active.lo[1] + int(blockIdx.y) * TY;
  const int n0 = a.n0, n1 = a.n1;
  const Box& box = a.active;
  const int i = i0 - G + 2 * p;  // the lane's pair: columns i, i + 1 (i even)
  // Window row r holds grid row j0 - G + r; column i + q of it is red when i + q + j is
  // even, i.e. q = j & 1.
  const bool pair_stored = i >= 0 && i + 1 <= n0;  // else one of them is a ghost or beyond
  const bool pair_active = i >= box.lo[0] && i + 1 <= box.hi[0];
  T col[2][4];
#pragma unroll
  for (int q = 0; q < 2; ++q)
#pragma unroll
    for (int f = 0; f < 4; ++f) col[q][f] = a.col[f][min(max(i + q, -1), n0) + 1];

  for (int r = w; r < H; r += kWarps) {
    const int j = j0 - G + r;
    T v0 = 0, v1 = 0;
    unsigned k0 = fixed, k1 = fixed;
    if (j >= -1 && j <= n1) {
      if (pair_stored) {
        const P2 v = *reinterpret_cast<const P2*>(&a.in(i, j, 0));
        v0 = v.x, v1 = v.y;
      } else {
        if (i >= -1 && i <= n0) v0 = a.in(i, j, 0);
        if (i + 1 >= -1 && i + 1 <= n0) v1 = a.in(i + 1, j, 0);
      }
      if (j >= box.lo[1] && j <= box.hi[1]) {
        if (pair_active) {
          const unsigned short kk = *reinterpret_cast<const unsigned short*>(&a.kind(i, j, 0));
          k0 = kk & 0xff, k1 = kk >> 8;
        } else {
          if (i >= box.lo[0] && i <= box.hi[0]) k0 = a.kind(i, j, 0);
          if (i + 1 >= box.lo[0] && i + 1 <= box.hi[0]) k1 = a.kind(i + 1, j, 0);
        }
      }
    }
    const bool first_red = (j & 1) == 0;
    red[r][p] = first_red ? v0 : v1;
    black[r][p] = first_red ? v1 : v0;
    kred[r][p] = std::uint8_t(first_red ? k0 : k1);
    kblack[r][p] = std::uint8_t(first_red ? k1 : k0);
  }
  __syncthreads();

  // Node q of the lane's pair in window row r, colour array `own`, from the other
  // colour: west and east across the pair boundary, south and north in the rows around.
  // A lane's rows are kWarps apart (an even number), so within a half-sweep its q never
  // changes: it is a compile-time constant here.
  auto update = [&](T(*own)[kPairs], const T(*other)[kPairs], std::uint8_t k, int r, auto qc) {
    constexpr int q = decltype(qc)::value;
    if (k == fixed) return;
    const T old = own[r][p];
    const T uw = other[r][q == 0 ? p - 1 : p], ue = other[r][q == 0 ? p : p + 1];
    const T us = other[r - 1][p], un = other[r + 1][p];
    T sum;
    if (k == regular) {
      sum = col[q][0] * uw + col[q][1] * ue + col[q][2] * us + col[q][3] * un;
    } else {
      const T* row = a.rows + 6 * std::int64_t(a.own(i + q, j0 - G + r, 0));
      sum = row[4] + (row[0] * uw + row[1] * ue + row[2] * us + row[3] * un);
    }
    own[r][p] = old + a.omega * (sum - old);
  };
  using Zero = std::integral_constant<int, 0>;
  using One = std::integral_constant<int, 1>;
  // Half-sweep of one colour over the tile and a ring `ring` nodes wide.
  auto sweep = [&](bool is_red, int ring) {
    const int first = G - ring, last_row = G + TY - 1 + ring, last_col = G + TX - 1 + ring;
    auto rows = [&](auto qc) {
      const int c = 2 * p + decltype(qc)::value;
      if (c < first || c > last_col) return;
      for (int r = first + w; r <= last_row; r += kWarps)
        is_red ? update(red, black, kred[r][p], r, qc) : update(black, red, kblack[r][p], r, qc);
    };
    // The colour's column in the pair on this lane's rows.
    const int q = ((j0 - G + first + w) & 1) ^ (is_red ? 0 : 1);
    if (q == 0)
      rows(Zero{});
    else
      rows(One{});
    __syncthreads();
  };
#pragma unroll
  for (int k = 0; k < 2 * STEPS; ++k) sweep(k % 2 == 0, 2 * STEPS - 1 - k);

  if (p >= G / 2 && p < G / 2 + TX / 2) {
    const bool in0 = i >= box.lo[0] && i <= box.hi[0],
               in1 = i + 1 >= box.lo[0] && i + 1 <= box.hi[0];
    for (int r = G + w; r < G + TY; r += kWarps) {
      const int j = j0 - G + r;
      if (j > box.hi[1]) break;
      const bool first_red = (j & 1) == 0;
      const T v0 = first_red ? red[r][p] : black[r][p], v1 = first_red ? black[r][p] : red[r][p];
      if (in0 && in1) {
        P2 v;
        v.x = v0, v.y = v1;
        *reinterpret_cast<P2*>(&a.out(i, j, 0)) = v;
      } else {
        if (in0) a.out(i, j, 0) = v0;
        if (in1) a.out(i + 1, j, 0) = v1;
      }
    }
  }
}

template <class T>
struct FusedData {
  FieldView<std::uint8_t> kind;
  FieldView<std::int32_t> own;  // own_row nodes: index of their row in `rows`
  T* rows;                      // six values a row: a_nb / a_P (w, e, s, n), b_P / a_P, a_P
  T* col[5];                    // w, e, s, n, a_P
};

// Column templates: the row of a free node of the column with a zero right-hand side,
// divided by its diagonal, from the first of a few rows spread over the height that has
// one. A column without one gets a_P = 0, which no node matches.
template <class T>
void make_templates(const StencilView<T>& a, const Box& active, int n1, FusedData<T> d) {
  const Box columns{{active.lo[0], 0, 0}, {active.hi[0], 0, 0}};
  for_each(Device::cuda, columns, [=] GRIDSOLVE_HD(int i, int, int) {
    const int rows[] = {n1 / 2, n1 / 3, 2 * n1 / 3, n1 / 4, 3 * n1 / 4, n1 / 8, 7 * n1 / 8};
    for (int j : rows) {
      if (!a.active.contains(i, j, 0) || !a.is_free(i, j, 0) || a.b(i, j, 0) != T(0)) continue;
      const T p = a.diag(i, j, 0);
      for (int f = 0; f < 4; ++f) d.col[f][i + 1] = a.coefficient(f, i, j, 0) / p;
      d.col[4][i + 1] = p;
      return;
    }
  });
}

// Marks every node: fixed (not an unknown), regular (its row is its column's, b = 0)
// or own_row.
template <class T>
void classify(const StencilView<T>& a, int n0, int n1, FusedData<T> d) {
  const Box all{{-1, -1, 0}, {n0, n1, 0}};
  for_each(Device::cuda, all, [=] GRIDSOLVE_HD(int i, int j, int k) {
    if (!(a.active.contains(i, j, k) && a.is_free(i, j, k))) {
      d.kind(i, j, k) = fixed;
      return;
    }
    const T p = a.diag(i, j, k);
    bool same = p == d.col[4][i + 1] && a.b(i, j, k) / p == T(0);
    for (int f = 0; f < 4; ++f) same = same && a.coefficient(f, i, j, k) / p == d.col[f][i + 1];
    d.kind(i, j, k) = same ? regular : own_row;
  });
}

// Gives every own_row node a slot in d.rows (in no particular order: a counter taken
// atomically) and stores its row there. A kernel of its own: the atomic has no host
// counterpart for for_each's loop body.
template <class T>
__global__ void store_own_rows_kernel(StencilView<T> a, Box active, FusedData<T> d,
                                      unsigned long long* counter) {
  const int i = active.lo[0] + int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i > active.hi[0]) return;
  for (int j = active.lo[1] + int(blockIdx.y); j <= active.hi[1]; j += int(gridDim.y)) {
    if (d.kind(i, j, 0) != own_row) continue;
    const std::int64_t slot = std::int64_t(atomicAdd(counter, 1ull));
    d.own(i, j, 0) = std::int32_t(slot);
    T* row = d.rows + 6 * slot;
    const T p = a.diag(i, j, 0);
    for (int f = 0; f < 4; ++f) row[f] = a.coefficient(f, i, j, 0) / p;
    row[4] = a.b(i, j, 0) / p;
    row[5] = p;
  }
}

template <class T>
void store_own_rows(const StencilView<T>& a, const Box& active, FusedData<T> d,
                    unsigned long long* counter) {
  const int width = active.hi[0] - active.lo[0] + 1, height = active.hi[1] - active.lo[1] + 1;
  const dim3 grid(unsigned((width + 255) / 256), unsigned(std::min(height, 65535)));
  store_own_rows_kernel<T><<<grid, 256>>>(a, active, d, counter);
  cuda::check_launch("fused SOR row store");
}

template <class T>
double count_kind(const Box& active, FieldView<const std::uint8_t> kind, std::uint8_t which) {
  return reduce<double>(
      Device::cuda, active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        return kind(i, j, k) == which ? 1.0 : 0.0;
      },
      SumOp{}, 0.0);
}

// ||b - A u||_2 over the free nodes: a_P (b_P / a_P + sum (a_nb / a_P) u_nb - u_P).
template <class T>
double fused_residual_norm(const Box& active, FieldView<const T> u, FusedData<T> d) {
  const SumOfSquares sum = reduce<SumOfSquares>(
      Device::cuda, active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> SumOfSquares {
        const std::uint8_t kind = d.kind(i, j, k);
        if (kind == fixed) return SumOfSquares{};
        const T uw = u(i - 1, j, k), ue = u(i + 1, j, k), us = u(i, j - 1, k), un = u(i, j + 1, k);
        T r;
        if (kind == regular)
          r = d.col[4][i + 1] * (d.col[0][i + 1] * uw + d.col[1][i + 1] * ue +
                                 d.col[2][i + 1] * us + d.col[3][i + 1] * un - u(i, j, k));
        else {
          const T* row = d.rows + 6 * std::int64_t(d.own(i, j, k));
          r = row[5] *
              (row[4] + (row[0] * uw + row[1] * ue + row[2] * us + row[3] * un) - u(i, j, k));
        }
        return SumOfSquares::of(double(r));
      },
      SumOp{}, SumOfSquares{});
  return sum.norm();  // scaled: large finite data do not overflow
}

}  // namespace detail

using namespace detail;

template <class T>
bool fused_sor_applies(const StencilOperator<T>& op) {
  // Periodic sides need their images refreshed between colours: the generic path does it.
  return op.device == Device::cuda && op.grid.dims == 2 && !op.active.empty() && op.periodic == 0;
}

template <class T>
struct FusedSor<T>::State {
  Box active;
  int n0 = 0, n1 = 0, cur = 0;
  Field<T> u[2];
  Field<std::uint8_t> kind;
  Field<std::int32_t> own;
  Buffer<T> rows;
  Buffer<T> col[5];
  double coverage = 0;

  FusedData<T> data() const {
    FusedData<T> d;
    d.kind = kind.view();
    d.own = own.view();
    d.rows = rows.data();
    for (int f = 0; f < 5; ++f) d.col[f] = col[f].data();
    return d;
  }
};

template <class T>
FusedSor<T>::FusedSor(const StencilOperator<T>& op, const Field<T>& u)
    : s_(std::make_unique<State>()) {
  require(fused_sor_applies(op), "the fused SOR kernel needs a 2D operator on the GPU");
  require(u.device() == Device::cuda, "the fused SOR kernel needs the field on the GPU");
  State& s = *s_;
  s.active = op.active;
  s.n0 = op.grid.n[0], s.n1 = op.grid.n[1];
  for (int c = 0; c < 2; ++c) s.u[c] = u.copy_to(Device::cuda);
  s.kind = Field<std::uint8_t>(op.grid, Device::cuda);
  s.own = Field<std::int32_t>(op.grid, Device::cuda);
  for (int f = 0; f < 5; ++f) {
    s.col[f] = Buffer<T>(Device::cuda, std::size_t(s.n0) + 2);
    zero_bytes(Device::cuda, s.col[f].data(), (std::size_t(s.n0) + 2) * sizeof(T));
  }
  const StencilView<T> a = op.view();
  make_templates(a, op.active, s.n1, s.data());
  classify(a, s.n0, s.n1, s.data());
  const FieldView<const std::uint8_t> k = s.kind.cview();
  const double regular_nodes = count_kind<T>(op.active, k, regular);
  const double own_nodes = count_kind<T>(op.active, k, own_row);
  s.coverage = regular_nodes + own_nodes > 0 ? regular_nodes / (regular_nodes + own_nodes) : 0;
  // The differing rows, packed: six values each.
  require(own_nodes < 2147483647.0, "the fused SOR kernel indexes at most 2^31 own rows");
  s.rows = Buffer<T>(Device::cuda, 6 * std::size_t(own_nodes) + 6);
  Buffer<unsigned long long> counter(Device::cuda, 1);
  zero_bytes(Device::cuda, counter.data(), sizeof(unsigned long long));
  store_own_rows(a, op.active, s.data(), counter.data());
  synchronize(Device::cuda);
}

template <class T>
FusedSor<T>::~FusedSor() = default;

template <class T>
double FusedSor<T>::coverage() const {
  return s_->coverage;
}

template <class T>
void FusedSor<T>::iterate(T omega, int count) {
  State& s = *s_;
  const FusedData<T> d = s.data();
  FusedArgs<T> a;
  a.kind = s.kind.cview();
  a.own = s.own.cview();
  a.rows = s.rows.data();
  for (int f = 0; f < 4; ++f) a.col[f] = d.col[f];
  a.active = s.active;
  a.n0 = s.n0, a.n1 = s.n1;
  a.omega = omega;
  // Tiles start on 128-byte boundaries of the rows (and so on even columns).
  const int align = int(128 / sizeof(T));
  const int i_origin = s.active.lo[0] >= 0 ? s.active.lo[0] / align * align : -align;
  const int rows = s.active.hi[1] - s.active.lo[1] + 1, cols = s.active.hi[0] + 1 - i_origin;
  auto launch = [&](auto kernel, int tx, int ty) {
    const dim3 grid(unsigned((cols + tx - 1) / tx), unsigned((rows + ty - 1) / ty));
    a.in = s.u[s.cur].cview();
    a.out = s.u[1 - s.cur].view();
    kernel<<<grid, 32 * kWarps>>>(a, i_origin);
    s.cur = 1 - s.cur;
  };
  // Three iterations a pass (measured best on an H200 at 4001^2: 2.21 s for the 30900
  // iterations against 2.40 s with two a pass and 3.41 s with one); the remainder by
  // two or one.
  int left = count;
  for (; left >= 3; left -= 3) launch(fused_iteration<T, 48, 3>, tile_cols<3>, 48);
  if (left == 2) launch(fused_iteration<T, 64, 2>, tile_cols<2>, 64);
  if (left == 1) launch(fused_iteration<T, 64, 1>, tile_cols<1>, 64);
  cuda::check_launch("fused SOR iteration");
}

template <class T>
double FusedSor<T>::residual_norm() const {
  const State& s = *s_;
  return fused_residual_norm<T>(s.active, s.u[s.cur].cview(), s.data());
}

template <class T>
void FusedSor<T>::store(Field<T>& u) const {
  u.copy_from(s_->u[s_->cur]);
}

template bool fused_sor_applies<float>(const StencilOperator<float>&);
template bool fused_sor_applies<double>(const StencilOperator<double>&);
template class FusedSor<float>;
template class FusedSor<double>;

}  // namespace gridsolve::tuned
