// The fused column pass (demag_column_pass.hpp): one block of py / 16 threads per x
// frequency. Each thread loads 16 values of a column (the padded rows are zeros, never
// read), transforms them with the register Stockham passes of stockham_fft.hpp (shared
// memory only for the exchanges between passes), multiplies by the tensor in registers,
// transforms back and stores the rows the inverse x transform keeps. M_x's spectrum waits
// in shared memory while M_y's is computed, and H_y while H_x is transformed back, so a
// thread holds one column's 16 values at a time. Compared with cuFFT's y passes, the padded
// half of each column is neither read nor written, and the spectrum never goes to memory
// between the transforms and the product.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/transform/demag_column_pass.hpp"
#include "gridsolve/transform/stockham_fft.hpp"

namespace gridsolve::demag {

namespace {

// One complex value of padding every 16 keeps the exchanges' strided writes off a single
// shared-memory bank.
__device__ __forceinline__ int padded(int i) { return i + (i >> 4); }

constexpr int pow16(int m) { return m == 0 ? 1 : 16 * pow16(m - 1); }

template <class T>
std::int64_t shared_bytes(int py) {
  return (std::int64_t(py) + py / 16 + py) * std::int64_t(sizeof(Cx<T>));
}

// The transform of the column this block holds: v[t] = x[j + t py/16] in, X[...] out. The
// shape is a template argument so that every pass unrolls with its stride a constant
// (divisions become shifts; a runtime shape made the pass 2.4 times slower).
template <int Passes16, int LastRadix, class T>
__device__ __forceinline__ void column_fft(Cx<T> v[16], Cx<T>* exchange,
                                           const Cx<T>* __restrict__ tw, int sign) {
  constexpr int py = pow16(Passes16) * LastRadix, spread = py / 16;
  const int j = threadIdx.x;
#pragma unroll
  for (int s = 0, ns = 1; s < Passes16; ++s, ns *= 16) {
    radix16_pass(v, j, py, s, ns, tw, sign);
    if (s == Passes16 - 1 && LastRadix == 1) break;
    __syncthreads();  // the previous exchange's reads are done
#pragma unroll
    for (int t = 0; t < 16; ++t) exchange[padded(radix16_destination(j, t, ns))] = v[t];
    __syncthreads();
#pragma unroll
    for (int t = 0; t < 16; ++t) v[t] = exchange[padded(j + t * spread)];
  }
  if constexpr (LastRadix > 1) last_pass<LastRadix>(v, j, py, tw, sign);
}

// The pieces of the columns, in shared memory (a kernel parameter indexed at run time would
// be copied to local memory), with the row after the last piece as a sentinel.
template <class T>
struct PieceTable {
  ColumnPiece<T> piece[ColumnPassArgs<T>::max_pieces];
  int first[ColumnPassArgs<T>::max_pieces + 1];
};

// Where row y of component c's column kx lies: one piece (one GPU) a column of its own,
// addressed from pointers the thread keeps, as the pass did before it took pieces (with
// the piece looked up in shared memory for every value, one GPU's fused evaluation of a
// 4096x2048 film measured 1.48 ms on an H200 against 1.27 ms before); several pieces (ranks)
// found in the table.
template <class T, bool Split>
struct ColumnAccess {
  const PieceTable<T>* table = nullptr;  // Split
  Cx<T>* col[3] = {nullptr, nullptr, nullptr};  // one piece
  int kx = 0;
  __device__ __forceinline__ Cx<T>* cell(int c, int y) const {
    if constexpr (!Split) {
      return col[c] + y;
    } else {
      int s = 0;
      while (y >= table->first[s + 1]) ++s;
      const ColumnPiece<T>& q = table->piece[s];
      return reinterpret_cast<Cx<T>*>(q.at) + c * q.comp_pitch + kx * q.col_pitch + (y - q.first);
    }
  }
};

template <class T, bool Split>
__device__ __forceinline__ void load_column(Cx<T> v[16], const ColumnAccess<T, Split>& at, int c,
                                            int ny, int spread) {
#pragma unroll
  for (int t = 0; t < 16; ++t) {
    const int y = threadIdx.x + t * spread;
    v[t] = y < ny ? *at.cell(c, y) : Cx<T>{T(0), T(0)};
  }
}

template <class T, bool Split>
__device__ __forceinline__ void store_column(const ColumnAccess<T, Split>& at, int c,
                                             const Cx<T> v[16], int ny, int spread) {
#pragma unroll
  for (int t = 0; t < 16; ++t) {
    const int y = threadIdx.x + t * spread;
    if (y < ny) *at.cell(c, y) = v[t];
  }
}

template <class T, int Passes16, int LastRadix, bool Split>
__global__ void __launch_bounds__(pow16(Passes16) * LastRadix / 16)
    column_pass_kernel(ColumnPassArgs<T> a) {
  extern __shared__ unsigned char shared_raw[];
  Cx<T>* exchange = reinterpret_cast<Cx<T>*>(shared_raw);
  constexpr int py = pow16(Passes16) * LastRadix, spread = py / 16;
  Cx<T>* parked = exchange + py + py / 16;  // a spectrum waiting its turn, own slots
  const int kx = blockIdx.x, j = threadIdx.x;
  ColumnAccess<T, Split> at;
  at.kx = kx;
  if constexpr (Split) {
    __shared__ PieceTable<T> pieces;
    if (j == 0) {
#pragma unroll
      for (int s = 0; s < ColumnPassArgs<T>::max_pieces; ++s)
        if (s < a.pieces) pieces.piece[s] = a.piece[s], pieces.first[s] = a.piece[s].first;
      pieces.first[a.pieces] = a.ny;
    }
    __syncthreads();
    at.table = &pieces;
  } else {
    const ColumnPiece<T>& q = a.piece[0];
    for (int c = 0; c < 3; ++c)
      at.col[c] = reinterpret_cast<Cx<T>*>(q.at) + c * q.comp_pitch + kx * q.col_pitch;
  }
  const Cx<T>* __restrict__ tw = reinterpret_cast<const Cx<T>*>(a.twiddle);
  const T* __restrict__ K = a.kernel + std::int64_t(kx) * (py / 2 + 1);
  const std::int64_t q = a.kernel_comp;
  Cx<T> v[16];

  // x and y together (the product couples them), z alone.
  load_column(v, at, 0, a.ny, spread);
  column_fft<Passes16, LastRadix>(v, exchange, tw, -1);
#pragma unroll
  for (int t = 0; t < 16; ++t) parked[j + t * spread] = v[t];
  load_column(v, at, 1, a.ny, spread);
  column_fft<Passes16, LastRadix>(v, exchange, tw, -1);
#pragma unroll
  for (int t = 0; t < 16; ++t) {
    // The tensor is stored for ky <= py/2; K_xy is odd in ky, the rest even.
    const int ky = j + t * spread;
    const bool flip = 2 * ky > py;
    const int r = flip ? py - ky : ky;
    const T kxx = __ldg(K + r), kyy = __ldg(K + q + r), kxy_ = __ldg(K + 3 * q + r);
    const T kxy = flip ? -kxy_ : kxy_;
    const Cx<T> mx = parked[ky], my = v[t];
    parked[ky] = scale(mx, kxy) + scale(my, kyy);
    v[t] = scale(mx, kxx) + scale(my, kxy);
  }
  column_fft<Passes16, LastRadix>(v, exchange, tw, 1);
  store_column(at, 0, v, a.ny, spread);
#pragma unroll
  for (int t = 0; t < 16; ++t) v[t] = parked[j + t * spread];
  column_fft<Passes16, LastRadix>(v, exchange, tw, 1);
  store_column(at, 1, v, a.ny, spread);

  // z: H_z = K_zz M_z in a single layer.
  load_column(v, at, 2, a.ny, spread);
  column_fft<Passes16, LastRadix>(v, exchange, tw, -1);
#pragma unroll
  for (int t = 0; t < 16; ++t) {
    const int ky = j + t * spread;
    v[t] = scale(v[t], __ldg(K + 2 * q + (2 * ky > py ? py - ky : ky)));
  }
  column_fft<Passes16, LastRadix>(v, exchange, tw, 1);
  store_column(at, 2, v, a.ny, spread);
}

constexpr int tile = 32, tile_rows = 8;

template <class E>
__global__ void transpose_kernel(const E* src, std::int64_t src_pitch, std::int64_t src_batch,
                                 E* dst, std::int64_t dst_pitch, std::int64_t dst_batch, int rows,
                                 int cols) {
  __shared__ E t[tile][tile + 1];  // one column of padding: the transposed reads hit all banks
  const E* s = src + blockIdx.z * src_batch;
  E* d = dst + blockIdx.z * dst_batch;
  const int c0 = blockIdx.x * tile, r0 = blockIdx.y * tile;
  for (int i = threadIdx.y; i < tile; i += tile_rows) {
    const int r = r0 + i, c = c0 + threadIdx.x;
    if (r < rows && c < cols) t[i][threadIdx.x] = s[std::int64_t(r) * src_pitch + c];
  }
  __syncthreads();
  for (int i = threadIdx.y; i < tile; i += tile_rows) {
    const int c = c0 + i, r = r0 + threadIdx.x;
    if (r < rows && c < cols) d[std::int64_t(c) * dst_pitch + r] = t[threadIdx.x][i];
  }
}

int shared_limit() {
  int dev = 0, bytes = 0;
  cuda::check(cudaGetDevice(&dev), "cudaGetDevice");
  cuda::check(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
              "shared memory limit");
  return bytes;
}

template <class T, int Passes16, int LastRadix, bool Split>
void launch_kernel(const ColumnPassArgs<T>& a) {
  constexpr int py = pow16(Passes16) * LastRadix;
  const auto bytes = shared_bytes<T>(py);
  static bool configured = false;
  // Dynamic and static shared memory together past the default 48 KiB need the opt-in.
  const std::int64_t table = Split ? std::int64_t(sizeof(PieceTable<T>)) : 0;
  if (bytes + table > 48 * 1024 && !configured) {
    cuda::check(cudaFuncSetAttribute(column_pass_kernel<T, Passes16, LastRadix, Split>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
                "column pass shared memory");
    configured = true;
  }
  column_pass_kernel<T, Passes16, LastRadix, Split><<<a.columns, py / 16, bytes>>>(a);
  cuda::check(cudaGetLastError(), "column pass launch");
}

template <class T, int Passes16, int LastRadix>
void launch(const ColumnPassArgs<T>& a) {
  if (a.pieces == 1)
    launch_kernel<T, Passes16, LastRadix, false>(a);
  else
    launch_kernel<T, Passes16, LastRadix, true>(a);
}

}  // namespace

template <class T>
bool column_pass_fits(const Layout& l) {
  if (!l.thin()) return false;
  const RegisterFftShape shape = RegisterFftShape::make(l.p[1]);
  return shape.valid() && shape.threads() <= 512 &&
         shared_bytes<T>(l.p[1]) + std::int64_t(sizeof(PieceTable<T>)) <= shared_limit();
}

template <class T>
void run_column_pass(const ColumnPassArgs<T>& a) {
  require(a.pieces >= 1 && a.pieces <= ColumnPassArgs<T>::max_pieces,
          fmt::format("demag column pass: {} pieces of columns, 1 .. {} allowed", a.pieces,
                      ColumnPassArgs<T>::max_pieces));
  if (a.columns == 0) return;
  switch (a.py) {
    case 16: return launch<T, 1, 1>(a);
    case 32: return launch<T, 1, 2>(a);
    case 64: return launch<T, 1, 4>(a);
    case 128: return launch<T, 1, 8>(a);
    case 256: return launch<T, 2, 1>(a);
    case 512: return launch<T, 2, 2>(a);
    case 1024: return launch<T, 2, 4>(a);
    case 2048: return launch<T, 2, 8>(a);
    case 4096: return launch<T, 3, 1>(a);
    case 8192: return launch<T, 3, 2>(a);
    default:
      throw Error(fmt::format("demag column pass: column length {} is not a power of two in "
                              "16 .. 8192",
                              a.py),
                  Error::Kind::invalid_input);
  }
}

template <class E>
void transpose(const E* src, std::int64_t src_pitch, std::int64_t src_batch, E* dst,
               std::int64_t dst_pitch, std::int64_t dst_batch, int rows, int cols, int batch) {
  if (rows <= 0 || cols <= 0 || batch <= 0) return;
  const dim3 grid((cols + tile - 1) / tile, (rows + tile - 1) / tile, batch);
  transpose_kernel<E><<<grid, dim3(tile, tile_rows)>>>(src, src_pitch, src_batch, dst, dst_pitch,
                                                      dst_batch, rows, cols);
  cuda::check(cudaGetLastError(), "transpose launch");
}

template bool column_pass_fits<float>(const Layout&);
template bool column_pass_fits<double>(const Layout&);
template void run_column_pass<float>(const ColumnPassArgs<float>&);
template void run_column_pass<double>(const ColumnPassArgs<double>&);
template void transpose<float>(const float*, std::int64_t, std::int64_t, float*, std::int64_t,
                               std::int64_t, int, int, int);
template void transpose<double>(const double*, std::int64_t, std::int64_t, double*, std::int64_t,
                                std::int64_t, int, int, int);
template void transpose<Cx<float>>(const Cx<float>*, std::int64_t, std::int64_t, Cx<float>*,
                                   std::int64_t, std::int64_t, int, int, int);
template void transpose<Cx<double>>(const Cx<double>*, std::int64_t, std::int64_t, Cx<double>*,
                                    std::int64_t, std::int64_t, int, int, int);

}  // namespace gridsolve::demag
