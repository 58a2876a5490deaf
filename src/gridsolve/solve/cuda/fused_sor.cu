// Red-black SOR with both half-sweeps fused into one pass over memory, for 2D operators
// whose rows mostly repeat along y (axisymmetric and other r- or x-dependent operators).
//
// Traffic is what limits SOR on a GPU. The colour-reordered kernel moves each colour
// array three times per iteration and, for a general operator, five coefficient words
// per node. Here one iteration reads u once (with a two-node halo per tile, partly
// served by L2) and writes it once, into a second array:
//  * a tile with its halo is loaded into shared memory; the red nodes of the tile and a
//    one-node ring around it are updated in place there (they read only black values,
//    which are still old); then the tile's black nodes (which read only red values, now
//    new, and their own old value); the tile goes out. The result is exactly one
//    red-black iteration, the ring's red values being computed twice, by this tile and
//    by its neighbour, from the same old values;
//  * coefficients are not streamed: each column's row (divided by its diagonal) is kept
//    once, taken from a node of that column, and every node whose row is bit-for-bit
//    that template with a zero right-hand side is marked regular in a byte per node. The
//    rest (boundaries, interfaces, sources) read their own stored row, a small fraction
//    of the nodes and of the traffic.
// Moves about 2.3 words per node and iteration (u in with the halo, u out, the byte).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/solve/cuda/tuned_kernels.hpp"

namespace gridsolve::tuned {

namespace detail {

enum NodeKind : std::uint8_t { regular = 0, own_row = 1, fixed = 2 };

template <class T>
struct FusedArgs {
  FieldView<const T> in;
  FieldView<T> out;
  FieldView<const std::uint8_t> kind;
  // Nodes marked own_row: a_nb / a_P toward w, e, s, n, and b_P / a_P.
  FieldView<const T> nb[4], b;
  // Column templates, indexed by i + 1 (i = -1 .. n0): a_nb / a_P toward w, e, s, n.
  const T* col[4];
  Box active;
  int n0, n1;
  T omega;
};

// A tile of TX x TY nodes; threads in a block of 256.
constexpr int kThreads = 256;

template <class T, int TX, int TY>
__global__ void __launch_bounds__(kThreads) fused_iteration(FusedArgs<T> a, int i_origin) {
  constexpr int W = TX + 4, H = TY + 4;  // the tile with its two-node halo
  constexpr int W1 = TX + 2, H1 = TY + 2;
  __shared__ T s[H][W];
  __shared__ std::uint8_t kd[H1][W1];
  const int tid = int(threadIdx.x);
  const int i0 = i_origin + int(blockIdx.x) * TX, j0 = a.active.lo[1] + int(blockIdx.y) * TY;
  const int n0 = a.n0, n1 = a.n1;

  for (int q = tid; q < H * W; q += kThreads) {
    const int r = q / W, c = q % W, i = i0 - 2 + c, j = j0 - 2 + r;
    s[r][c] = i >= -1 && i <= n0 && j >= -1 && j <= n1 ? a.in(i, j, 0) : T(0);
  }
  for (int q = tid; q < H1 * W1; q += kThreads) {
    const int r = q / W1, c = q % W1, i = i0 - 1 + c, j = j0 - 1 + r;
    kd[r][c] = a.active.contains(i, j, 0) ? a.kind(i, j, 0) : std::uint8_t(fixed);
  }
  __syncthreads();

  // Updates node (i, j) held at s[r][c] (kd[r - 1][c - 1]) from its neighbours in s.
  auto update = [&](int r, int c, int i, int j) {
    const std::uint8_t k = kd[r - 1][c - 1];
    if (k == fixed) return;
    const T old = s[r][c];
    const T uw = s[r][c - 1], ue = s[r][c + 1], us = s[r - 1][c], un = s[r + 1][c];
    T sum;
    if (k == regular) {
      sum = a.col[0][i + 1] * uw + a.col[1][i + 1] * ue + a.col[2][i + 1] * us +
            a.col[3][i + 1] * un;
    } else {
      sum = a.b(i, j, 0) + (a.nb[0](i, j, 0) * uw + a.nb[1](i, j, 0) * ue +
                            a.nb[2](i, j, 0) * us + a.nb[3](i, j, 0) * un);
    }
    s[r][c] = old + a.omega * (sum - old);
  };

  // Red (i + j even) over the tile and a one-node ring: rows r = 1 .. H1, W1 / 2 per row.
  for (int q = tid; q < H1 * (W1 / 2); q += kThreads) {
    const int rr = q / (W1 / 2), m = q % (W1 / 2);
    const int j = j0 - 1 + rr, ifirst = i0 - 1 + ((i0 - 1 + j) & 1);
    const int i = ifirst + 2 * m;
    update(rr + 1, i - i0 + 2, i, j);
  }
  __syncthreads();
  // Black (i + j odd) over the tile.
  for (int q = tid; q < TY * (TX / 2); q += kThreads) {
    const int rr = q / (TX / 2), m = q % (TX / 2);
    const int j = j0 + rr, ifirst = i0 + ((i0 + j + 1) & 1);
    const int i = ifirst + 2 * m;
    update(rr + 2, i - i0 + 2, i, j);
  }
  __syncthreads();
  for (int q = tid; q < TY * TX; q += kThreads) {
    const int r = q / TX, c = q % TX, i = i0 + c, j = j0 + r;
    if (a.active.contains(i, j, 0)) a.out(i, j, 0) = s[r + 2][c + 2];
  }
}

template <class T>
struct FusedData {
  FieldView<std::uint8_t> kind;
  FieldView<T> nb[4], b, ap;
  T* col[5];  // w, e, s, n, a_P
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

// Marks every node and stores the rows of those that do not match their column.
template <class T>
void classify(const StencilView<T>& a, int n0, int n1, FusedData<T> d) {
  const Box all{{-1, -1, 0}, {n0, n1, 0}};
  for_each(Device::cuda, all, [=] GRIDSOLVE_HD(int i, int j, int k) {
    if (!(a.active.contains(i, j, k) && a.is_free(i, j, k))) {
      d.kind(i, j, k) = fixed;
      return;
    }
    const T p = a.diag(i, j, k), bp = a.b(i, j, k) / p;
    T nb[4];
    bool same = p == d.col[4][i + 1] && bp == T(0);
    for (int f = 0; f < 4; ++f) {
      nb[f] = a.coefficient(f, i, j, k) / p;
      same = same && nb[f] == d.col[f][i + 1];
    }
    d.kind(i, j, k) = same ? regular : own_row;
    if (!same) {
      for (int f = 0; f < 4; ++f) d.nb[f](i, j, k) = nb[f];
      d.b(i, j, k) = bp;
      d.ap(i, j, k) = p;
    }
  });
}

template <class T>
double count_kind(const Box& active, FieldView<const std::uint8_t> kind, std::uint8_t which) {
  return reduce<double>(
      Device::cuda, active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double { return kind(i, j, k) == which ? 1.0 : 0.0; },
      SumOp{}, 0.0);
}

// ||b - A u||_2 over the free nodes: a_P (b_P / a_P + sum (a_nb / a_P) u_nb - u_P).
template <class T>
double fused_residual_norm(const Box& active, FieldView<const T> u, FusedData<T> d) {
  const double sum = reduce<double>(
      Device::cuda, active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const std::uint8_t kind = d.kind(i, j, k);
        if (kind == fixed) return 0.0;
        const T uw = u(i - 1, j, k), ue = u(i + 1, j, k), us = u(i, j - 1, k), un = u(i, j + 1, k);
        T r;
        if (kind == regular)
          r = d.col[4][i + 1] * (d.col[0][i + 1] * uw + d.col[1][i + 1] * ue +
                                 d.col[2][i + 1] * us + d.col[3][i + 1] * un - u(i, j, k));
        else
          r = d.ap(i, j, k) * (d.b(i, j, k) + (d.nb[0](i, j, k) * uw + d.nb[1](i, j, k) * ue +
                                               d.nb[2](i, j, k) * us + d.nb[3](i, j, k) * un) -
                               u(i, j, k));
        return double(r) * double(r);
      },
      SumOp{}, 0.0);
  return std::sqrt(sum);
}

}  // namespace detail

namespace {
using namespace detail;
constexpr int kTileX = 64, kTileY = 32;
}  // namespace

template <class T>
bool fused_sor_applies(const StencilOperator<T>& op) {
  return op.device == Device::cuda && op.grid.dims == 2 && !op.uniform && !op.active.empty();
}

template <class T>
struct FusedSor<T>::State {
  Box active;
  int n0 = 0, n1 = 0, cur = 0;
  Field<T> u[2];
  Field<std::uint8_t> kind;
  Field<T> nb[4], b, ap;
  Buffer<T> col[5];
  double coverage = 0;

  FusedData<T> data() const {
    FusedData<T> d;
    d.kind = kind.view();
    for (int f = 0; f < 4; ++f) d.nb[f] = nb[f].view();
    d.b = b.view(), d.ap = ap.view();
    for (int f = 0; f < 5; ++f) d.col[f] = col[f].data();
    return d;
  }
};

template <class T>
FusedSor<T>::FusedSor(const StencilOperator<T>& op, const Field<T>& u)
    : s_(std::make_unique<State>()) {
  require(fused_sor_applies(op),
          "the fused SOR kernel needs a 2D operator with per-node coefficients on the GPU");
  require(u.device() == Device::cuda, "the fused SOR kernel needs the field on the GPU");
  State& s = *s_;
  s.active = op.active;
  s.n0 = op.grid.n[0], s.n1 = op.grid.n[1];
  for (int c = 0; c < 2; ++c) s.u[c] = u.copy_to(Device::cuda);
  s.kind = Field<std::uint8_t>(op.grid, Device::cuda);
  for (int f = 0; f < 4; ++f) s.nb[f] = Field<T>(op.grid, Device::cuda);
  s.b = Field<T>(op.grid, Device::cuda);
  s.ap = Field<T>(op.grid, Device::cuda);
  for (int f = 0; f < 5; ++f) {
    s.col[f] = Buffer<T>(Device::cuda, std::size_t(s.n0) + 2);
    zero_bytes(Device::cuda, s.col[f].data(), (std::size_t(s.n0) + 2) * sizeof(T));
  }
  const FusedData<T> d = s.data();
  const StencilView<T> a = op.view();
  make_templates(a, op.active, s.n1, d);
  classify(a, s.n0, s.n1, d);
  const FieldView<const std::uint8_t> k = s.kind.cview();
  const double regular_nodes = count_kind<T>(op.active, k, regular);
  const double free_nodes = regular_nodes + count_kind<T>(op.active, k, own_row);
  s.coverage = free_nodes > 0 ? regular_nodes / free_nodes : 0;
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
  for (int f = 0; f < 4; ++f) {
    a.nb[f] = s.nb[f].cview();
    a.col[f] = d.col[f];
  }
  a.b = s.b.cview();
  a.active = s.active;
  a.n0 = s.n0, a.n1 = s.n1;
  a.omega = omega;
  // Tiles start on 128-byte boundaries of the rows.
  const int align = int(128 / sizeof(T));
  const int i_origin = s.active.lo[0] >= 0 ? s.active.lo[0] / align * align : -align;
  const dim3 grid(unsigned((s.active.hi[0] + 1 - i_origin + kTileX - 1) / kTileX),
                  unsigned((s.active.hi[1] - s.active.lo[1] + kTileY) / kTileY));
  for (int it = 0; it < count; ++it) {
    a.in = s.u[s.cur].cview();
    a.out = s.u[1 - s.cur].view();
    fused_iteration<T, kTileX, kTileY><<<grid, kThreads>>>(a, i_origin);
    s.cur = 1 - s.cur;
  }
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
