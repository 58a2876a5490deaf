// GPU tridiagonal solves: pipelined Thomas (a warp per 16 lines), CR / PCR / CR-PCR per
// block in shared memory, and partitioned elimination (a partition per thread) for long
// systems and strided batches (of systems of up to 4096 rows in one pass,
// strided_blocks.cuh; of longer ones in two, below).
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/solve/tridiag/cyclic_reduction.hpp"
#include "gridsolve/solve/tridiag/device_reciprocal.cuh"
#include "gridsolve/solve/tridiag/interleaved_clusters.cuh"
#include "gridsolve/solve/tridiag/interleaved_partitions.cuh"
#include "gridsolve/solve/tridiag/shifted_lines.hpp"
#include "gridsolve/solve/tridiag/strided_blocks.cuh"
#include "gridsolve/solve/tridiag/thomas.hpp"
#include "gridsolve/solve/tridiag/tridiagonal_cpu.hpp"

namespace gridsolve::tridiag {

namespace {

using Flag = unsigned long long;
constexpr Flag no_failure = ~Flag(0);

// Grow-only device scratch, one slot per use, kept for the process lifetime so that
// repeated solves allocate nothing.
void* scratch(int slot, std::size_t bytes) {
  static std::mutex m;
  static Buffer<char> slots[8];
  std::lock_guard<std::mutex> lock(m);
  if (slots[slot].size() < bytes) slots[slot] = Buffer<char>(Device::cuda, bytes);
  return slots[slot].data();
}

__device__ void record(Flag* flag, std::int64_t where) {
  atomicMin(flag, Flag(where));
}

// A failure in a reduced batch of `rows` rows per system, reported at row 0 of the
// original system (of n rows).
__global__ void record_mapped(Flag* flag, const Flag* reduced, int rows, int n) {
  if (*reduced != no_failure) record(flag, std::int64_t(*reduced / Flag(rows)) * n);
}

int max_shared_bytes() {
  static const int bytes = [] {
    int dev = 0, v = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    return v > 0 ? v : 48 * 1024;
  }();
  return bytes;
}

// Thomas for a batch of lines, one warp per 16 lines, built to stream at memory speed
// although each line is a sequential recurrence:
//  * each line is swept from both ends at once (a twisted factorization): lane l < 16
//    eliminates downwards over the top half, lane l + 16 upwards over the bottom half,
//    the two meet in a 2 x 2 solve and substitute back outwards. Same arithmetic as
//    plain Thomas, half the dependent chain, twice the warps in flight;
//  * rows arrive in tiles of kTileRows chain steps through cp.async, kStages tiles
//    deep, so that the loads of later rows are in flight while the lanes divide their
//    way down the current tile (one thread per line with plain loads keeps a single row
//    in flight and runs latency-bound, at a few per cent of the bandwidth);
//  * tiles are read coalesced whatever the layout: with adjacent lines (interleaved)
//    each half's tile row is one contiguous run across its 16 lanes; with adjacent rows
//    (strided) the lanes take 32 consecutive rows of one half-line at a time, a
//    transpose through the padded tile;
//  * the modified coefficients go to scratch laid out lane fastest, so the forward
//    stores and backward loads are contiguous 32-wide runs.
// Traffic: a, b, c, d read, c' and d' written and read back, x written: 9 words per
// unknown (the 5 of the ideal plus the round trip no on-chip store can hold at these
// sizes). Coef supplies the coefficients: from arrays, or computed for shifted lines.
constexpr int kTileRows = 32;
constexpr int kPitch = 33;     // padded tile row: 32 lanes + 1, spreads the banks
constexpr int kMaxStages = 3;  // 3 x 4 arrays x 32 x 33 doubles: two blocks per SM

struct Geometry {
  int n;
  std::int64_t count, inner, outer, rs;
  __device__ std::int64_t base(std::int64_t s) const { return (s / inner) * outer + s % inner; }
};

template <class T>
struct ArrayCoef {
  static constexpr int staged = 4;  // a, b, c, d
  const T* src[4];
  static constexpr bool checked = true;
  __device__ bool live(std::int64_t) const { return true; }
  __device__ void row(const T* tile, int k, int lane, int i, int n, T& a, T& b, T& c, T& d) const {
    a = i > 0 ? tile[(0 * kTileRows + k) * kPitch + lane] : T(0);
    b = tile[(1 * kTileRows + k) * kPitch + lane];
    c = i + 1 < n ? tile[(2 * kTileRows + k) * kPitch + lane] : T(0);
    d = tile[(3 * kTileRows + k) * kPitch + lane];
  }
};

template <class T>
struct ShiftedCoef {
  static constexpr int staged = 1;  // d only; a, b, c are computed
  const T* src[1];
  tridiag::ShiftedLines p;
  static constexpr bool checked = false;
  __device__ double shift(std::int64_t s) const {
    return p.sigma[p.sigma_period > 0 ? s % p.sigma_period : s];
  }
  __device__ bool live(std::int64_t s) const { return !(p.skip_zero_shift && shift(s) == 0.0); }
  __device__ void row(const T* tile, int k, int lane, int i, int n, T& a, T& b, T& c, T& d,
                      double sigma) const {
    const double w = i == 0 ? p.w_first : i == n - 1 ? p.w_last : 1.0;
    const double e = i == 0 ? p.e_first : i == n - 1 ? p.e_last : p.e_mid;
    a = i > 0 ? T(p.off) : T(0);
    c = i + 1 < n ? T(p.off) : T(0);
    b = T(sigma * w + e);
    d = tile[k * kPitch + lane];
  }
};

template <class T, class Coef>
__global__ void __launch_bounds__(32)
    line_thomas_kernel(Geometry g, Coef coef, T* x, T* scratch, int stages, Flag* flag) {
  extern __shared__ unsigned char smem_raw[];
  T* sm = reinterpret_cast<T*>(smem_raw);
  constexpr int NA = Coef::staged > 2 ? Coef::staged : 2;  // backward stages c', d'
  const int lane = int(threadIdx.x), n = g.n;
  const bool bottom = lane >= 16;
  const std::int64_t s = std::int64_t(blockIdx.x) * 16 + (lane & 15);
  const int len_top = (n + 1) / 2;
  const int len = bottom ? n - len_top : len_top;  // chain steps of this lane
  const bool sys_live = s < g.count && coef.live(s);
  const bool live = sys_live && len > 0;
  const unsigned live_mask = __ballot_sync(~0u, live);
  const bool rows_adjacent = g.rs == 1;
  const int tiles = (len_top + kTileRows - 1) / kTileRows;
  // One 64-bit division per lane, up front; the transposed paths fetch a line's base
  // from its lane by shuffle instead of recomputing it per row.
  const std::int64_t my_base = s < g.count ? g.base(s) : 0;
  T* out = sm + std::size_t(stages) * NA * kTileRows * kPitch;
  T* scr = scratch + std::size_t(blockIdx.x) * 2 * std::size_t(len_top) * 32;  // c', then d'
  auto stage_ptr = [&](int t) { return sm + std::size_t(t % stages) * NA * kTileRows * kPitch; };
  // Row of chain step j for lane l: downwards from 0 in the top half, upwards from
  // n - 1 in the bottom half.
  auto row_of = [n](int l, int j) { return l >= 16 ? n - 1 - j : j; };
  auto len_of = [n, len_top](int l) { return l >= 16 ? n - len_top : len_top; };

  auto load_forward = [&](int t) {
    if (t < tiles) {
      T* dst = stage_ptr(t);
      const int i0 = t * kTileRows, rows = min(kTileRows, len - i0);
      if (!rows_adjacent) {
        if (live)
          for (int k = 0; k < rows; ++k) {
            const std::int64_t o = my_base + std::int64_t(row_of(lane, i0 + k)) * g.rs;
#pragma unroll
            for (int q = 0; q < Coef::staged; ++q)
              __pipeline_memcpy_async(dst + (q * kTileRows + k) * kPitch + lane, coef.src[q] + o,
                                      sizeof(T));
          }
      } else {
        for (unsigned m = live_mask; m; m &= m - 1) {
          const int l = __ffs(m) - 1;
          const std::int64_t o = __shfl_sync(~0u, my_base, l) + row_of(l, i0 + lane);
          if (i0 + lane < len_of(l))
#pragma unroll
            for (int q = 0; q < Coef::staged; ++q)
              __pipeline_memcpy_async(dst + (q * kTileRows + lane) * kPitch + l, coef.src[q] + o,
                                      sizeof(T));
        }
      }
    }
    __pipeline_commit();  // an empty group past the end keeps the wait counts uniform
  };

  double sigma = 0;
  if constexpr (!Coef::checked) sigma = live ? coef.shift(s) : 0.0;
  bool failed = false;
  T cprev = 0, dprev = 0;
  for (int t = 0; t < stages - 1; ++t) load_forward(t);
  for (int t = 0; t < tiles; ++t) {
    load_forward(t + stages - 1);
    __pipeline_wait_prior(stages - 1);
    __syncwarp();
    const T* tile = stage_ptr(t);
    const int i0 = t * kTileRows;
    // Unrolled so that the tile reads of later rows issue ahead of the recurrence.
    auto step = [&](int k) {
      const int j = i0 + k, i = row_of(lane, j);
      T a, b, c, d;
      if constexpr (Coef::checked)
        coef.row(tile, k, lane, i, n, a, b, c, d);
      else
        coef.row(tile, k, lane, i, n, a, b, c, d, sigma);
      if (bottom) {  // sweeping upwards: the row below is the one already eliminated
        const T lower = a;
        a = c, c = lower;
      }
      const T tt = a * cprev;
      const T den = b - tt;
      if constexpr (Coef::checked)
        if (!failed && !pivot_ok(den, abs_of(b) + abs_of(tt))) {
          failed = true;
          record(flag, s * n + i);
        }
      const T inv = reciprocal(den);
      cprev = c * inv;
      dprev = (d - a * dprev) * inv;
      scr[std::size_t(j) * 32 + lane] = cprev;
      scr[(std::size_t(len_top) + j) * 32 + lane] = dprev;
    };
    if (live) {
      if (i0 + kTileRows <= len) {
#pragma unroll 8
        for (int k = 0; k < kTileRows; ++k) step(k);
      } else {
        for (int k = 0; k < len - i0; ++k) step(k);
      }
    }
    __syncwarp();  // the stage is refilled next
  }
  // The halves meet: the top's last row reads x_p + C x_q = D and the bottom's
  // x_q + C' x_p = D' (p = len_top - 1, q = p + 1); each lane solves the 2 x 2 for its
  // own unknown. A line of one row has no bottom half (C' = D' = 0).
  const T c_other = __shfl_xor_sync(~0u, cprev, 16), d_other = __shfl_xor_sync(~0u, dprev, 16);
  const T meet = T(1) - cprev * c_other;
  if constexpr (Coef::checked)
    if (live && !bottom && !failed && !pivot_ok(meet, T(1) + abs_of(cprev * c_other)))
      record(flag, s * n + len_top - 1);
  T xv = (dprev - cprev * d_other) / meet;
  __threadfence_block();  // scratch stores before the copies that read them back

  // Backward: chain steps in reverse, c' and d' staged the same way (lane = half-line).
  auto load_backward = [&](int u) {
    if (u < tiles && live) {
      const int t = tiles - 1 - u;
      T* dst = stage_ptr(u);
      const int i0 = t * kTileRows, rows = min(kTileRows, len - i0);
      for (int k = 0; k < rows; ++k) {
        __pipeline_memcpy_async(dst + k * kPitch + lane, scr + std::size_t(i0 + k) * 32 + lane,
                                sizeof(T));
        __pipeline_memcpy_async(dst + (kTileRows + k) * kPitch + lane,
                                scr + (std::size_t(len_top) + i0 + k) * 32 + lane, sizeof(T));
      }
    }
    __pipeline_commit();
  };
  for (int u = 0; u < stages - 1; ++u) load_backward(u);
  for (int u = 0; u < tiles; ++u) {
    load_backward(u + stages - 1);
    __pipeline_wait_prior(stages - 1);
    __syncwarp();
    const T* tile = stage_ptr(u);
    const int t = tiles - 1 - u, i0 = t * kTileRows;
    auto step = [&](int k) {
      const int j = i0 + k;
      if (j < len - 1) xv = tile[(kTileRows + k) * kPitch + lane] - tile[k * kPitch + lane] * xv;
      if (rows_adjacent)
        out[k * kPitch + lane] = xv;
      else
        x[my_base + std::int64_t(row_of(lane, j)) * g.rs] = xv;
    };
    if (live) {
      if (i0 + kTileRows <= len) {
#pragma unroll 8
        for (int k = kTileRows - 1; k >= 0; --k) step(k);
      } else {
        for (int k = len - i0 - 1; k >= 0; --k) step(k);
      }
    }
    if (rows_adjacent) {  // transpose back: 32 consecutive rows of one half-line per store
      __syncwarp();
      for (unsigned m = live_mask; m; m &= m - 1) {
        const int l = __ffs(m) - 1;
        const std::int64_t o = __shfl_sync(~0u, my_base, l) + row_of(l, i0 + lane);
        if (i0 + lane < len_of(l)) x[o] = out[lane * kPitch + l];
      }
    }
    __syncwarp();
  }
}

template <class T, class Coef>
void launch_line_thomas(const Geometry& g, const Coef& coef, T* x, Flag* flag) {
  constexpr int NA = Coef::staged > 2 ? Coef::staged : 2;
  static const bool configured = [] {
    cudaFuncSetAttribute(line_thomas_kernel<T, Coef>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         max_shared_bytes());
    return true;
  }();
  (void)configured;
  const int tiles = ((g.n + 1) / 2 + kTileRows - 1) / kTileRows;
  const int stages = std::min(kMaxStages, tiles + 1);
  const std::size_t smem = (std::size_t(stages) * NA + 1) * kTileRows * kPitch * sizeof(T);
  const std::int64_t blocks = (g.count + 15) / 16;
  T* scr = static_cast<T*>(
      scratch(1, sizeof(T) * std::size_t(blocks) * 64 * std::size_t((g.n + 1) / 2)));
  line_thomas_kernel<T, Coef><<<unsigned(blocks), 32, smem>>>(g, coef, x, scr, stages, flag);
  cuda::check_launch("batched Thomas tridiagonal kernel");
}

// Partition geometry of the partitioned solver (described with its kernels below).
constexpr int kPartRows = 16;
constexpr int kPartThreads = 128;
constexpr int kChunk = kPartRows * kPartThreads;
// One pad slot per partition: threads 16 rows apart land in different banks.
constexpr int kPaddedChunk = kChunk + kChunk / kPartRows;
__device__ inline int padded(int i) {
  return i + i / kPartRows;
}
// Reduced systems at most this long are solved by one cr-pcr block.
constexpr std::int64_t kDirectRows = 1024;

// Row of the level-0 system that reduced row r at `depth` levels down stands for
// (row 2p of a reduced system is partition p's first row, 2p + 1 its last).
__device__ inline std::int64_t original_row(std::int64_t r, int depth) {
  for (int l = 0; l < depth; ++l) r = (r >> 1) * kPartRows + (r & 1) * (kPartRows - 1);
  return r;
}

// One block per system, the whole system in shared memory (coalesced loads and
// stores). CR halves the active rows until at most `pcr_rows` remain (one per thread),
// PCR solves those in log2 steps from registers, and CR back substitution fills in.
// pcr_rows = 1 is plain CR; pcr_rows >= n is plain PCR. depth > 0: the system is a
// reduced system of the partitioned solver, and a failed pivot is reported at the
// original row it stands for.
template <class T>
__global__ void cr_pcr_kernel(Batch<T> bt, int pcr_rows, Flag* flag, int depth) {
  extern __shared__ unsigned char smem_raw[];
  T* sm = reinterpret_cast<T*>(smem_raw);
  const int n = bt.n, tid = int(threadIdx.x), nt = int(blockDim.x);
  const int sys = int(blockIdx.x);
  T *a = sm, *b = sm + n, *c = sm + 2 * n, *d = sm + 3 * n;
  const std::int64_t base = sys * bt.system_stride(), rs = bt.row_stride();
  for (int i = tid; i < n; i += nt) {
    const std::int64_t o = base + i * rs;
    a[i] = i > 0 ? bt.a[o] : T(0);
    b[i] = bt.b[o];
    c[i] = i + 1 < n ? bt.c[o] : T(0);
    d[i] = bt.d[o];
    if (!pivot_ok(b[i], abs_of(b[i]))) record(flag, original_row(std::int64_t(sys) * n + i, depth));
  }
  __syncthreads();
  int s = 1;
  while (n / s > pcr_rows) {
    for (int j = 2 * s - 1 + 2 * s * tid; j < n; j += 2 * s * nt)
      if (!cr_eliminate(a, b, c, d, j, s, n))
        record(flag, original_row(std::int64_t(sys) * n + j, depth));
    __syncthreads();
    s *= 2;
  }
  const int na = n / s;  // active rows j = (t + 1) s - 1
  const int j = (tid + 1) * s - 1;
  T aa = 0, bb = 1, cc = 0, dd = 0;
  if (tid < na) aa = a[j], bb = b[j], cc = c[j], dd = d[j];
  for (int delta = 1; delta < na; delta *= 2) {
    T na_ = aa, nb = bb, nc = cc, nd = dd;
    if (tid < na) {
      const bool lo = tid - delta >= 0, hi = tid + delta < na;
      const int jl = j - delta * s, jh = j + delta * s;
      const T k1 = lo ? aa / b[jl] : T(0);
      const T k2 = hi ? cc / b[jh] : T(0);
      const T t1 = lo ? c[jl] * k1 : T(0);
      const T t2 = hi ? a[jh] * k2 : T(0);
      nb = bb - t1 - t2;
      if (!pivot_ok(nb, abs_of(bb) + abs_of(t1) + abs_of(t2)))
        record(flag, original_row(std::int64_t(sys) * n + j, depth));
      nd = dd - (lo ? d[jl] * k1 : T(0)) - (hi ? d[jh] * k2 : T(0));
      na_ = lo ? -a[jl] * k1 : T(0);
      nc = hi ? -c[jh] * k2 : T(0);
    }
    __syncthreads();
    aa = na_, bb = nb, cc = nc, dd = nd;
    if (tid < na) a[j] = aa, b[j] = bb, c[j] = cc, d[j] = dd;
    __syncthreads();
  }
  if (tid < na) d[j] = dd / bb;
  __syncthreads();
  for (s /= 2; s >= 1; s /= 2) {
    for (int r = s - 1 + 2 * s * tid; r < n; r += 2 * s * nt) {
      const T lo = r - s >= 0 ? a[r] * d[r - s] : T(0);
      const T hi = r + s < n ? c[r] * d[r + s] : T(0);
      d[r] = (d[r] - lo - hi) / b[r];
    }
    __syncthreads();
  }
  for (int i = tid; i < n; i += nt) bt.d[base + i * rs] = d[i];
}

// Partitioned solve of one long system, or of a strided batch of systems longer than
// strided_blocks.cuh takes, as one block-diagonal system (the couplings across system
// boundaries are masked to zero).
// Each thread owns a partition of kPartRows consecutive rows; a block of kPartThreads
// threads stages its kChunk rows of a, b, c, d in shared memory with coalesced
// cp.async copies and the threads eliminate from there:
//  * reduce: a downward sweep over the interior gives the partition's last row in the
//    unknowns (x_s, x_e, x_{e+1}), an independent upward sweep its first row in
//    (x_{s-1}, x_s, x_e). The two chains interleave (two divisions in flight per
//    thread) and nothing per row is kept: the reduced system, two rows per partition,
//    is again tridiagonal and is solved the same way until it fits one cr-pcr block;
//  * finish: with x_s and x_e known each partition's interior is an independent
//    system; it is re-staged from the original rows and solved by Thomas in registers,
//    the solution leaving through shared memory with coalesced stores.
// Recomputing the interior costs 4 words per unknown read again, the same as writing
// and reading back modified coefficients would, and no scratch of the system's size.
// Traffic: 4 words in, 4 in again and 1 out, plus an eighth of that per reduced level.
// With every thread owning a partition there are n / 16 independent chains instead of
// two per system, enough to keep the memory system busy at any batch shape.
// Copies rows [r0, r0 + kChunk) of the four arrays into shared memory; rows past n
// become identity rows (a = c = 0, b = 1, d = 0), decoupled from the rest.
template <class T>
__device__ void stage_chunk(std::int64_t r0, std::int64_t n, const T* a, const T* b, const T* c,
                            const T* d, T* sm) {
  const std::int64_t left = n - r0;
  const int rows = left < kChunk ? int(left) : kChunk;
  const T* src[4] = {a + r0, b + r0, c + r0, d + r0};
#pragma unroll
  for (int j = 0; j < kPartRows; ++j) {
    const int i = j * kPartThreads + int(threadIdx.x), k = padded(i);
    if (i < rows) {
#pragma unroll
      for (int q = 0; q < 4; ++q)
        __pipeline_memcpy_async(sm + q * kPaddedChunk + k, src[q] + i, sizeof(T));
    } else {
      sm[k] = T(0), sm[kPaddedChunk + k] = T(1), sm[2 * kPaddedChunk + k] = T(0),
      sm[3 * kPaddedChunk + k] = T(0);
    }
  }
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
}

// The rows of one thread's partition in shared memory, with a_i = 0 on the first row
// of a system and c_i = 0 on the last (the caller's values there are not part of the
// system). sys_n >= kPartRows, so a partition holds at most one system start.
template <class T>
struct PartRows {
  const T* sm;
  int base, first, last;  // first / last: local rows starting / ending a system, or kPartRows
  __device__ PartRows(const T* s, int t, std::int64_t row0, std::int64_t sys_n)
      : sm(s), base(t * (kPartRows + 1)) {
    const std::int64_t pos = row0 % sys_n;
    first = int(pos == 0 ? 0 : (sys_n - pos < kPartRows ? sys_n - pos : kPartRows));
    last = int(sys_n - 1 - pos < kPartRows ? sys_n - 1 - pos : kPartRows);
  }
  __device__ T a(int k) const { return k == first ? T(0) : sm[base + k]; }
  __device__ T b(int k) const { return sm[kPaddedChunk + base + k]; }
  __device__ T c(int k) const { return k == last ? T(0) : sm[2 * kPaddedChunk + base + k]; }
  __device__ T d(int k) const { return sm[3 * kPaddedChunk + base + k]; }
};

template <class T>
__global__ void __launch_bounds__(kPartThreads)
    partition_reduce_kernel(std::int64_t n, std::int64_t sys_n, const T* a, const T* b, const T* c,
                            const T* d, T* ra, T* rb, T* rc, T* rd, Flag* flag, int depth) {
  extern __shared__ unsigned char smem_raw[];
  T* sm = reinterpret_cast<T*>(smem_raw);
  const std::int64_t r0 = std::int64_t(blockIdx.x) * kChunk;
  stage_chunk(r0, n, a, b, c, d, sm);
  const int t = int(threadIdx.x);
  const std::int64_t s = r0 + t * kPartRows, p = s / kPartRows;
  if (s >= n) return;
  const PartRows<T> r(sm, t, s, sys_n);
  constexpr int L = kPartRows - 1;  // local index of the last row
  int bad = -1;
  auto check = [&](T pivot, T scale, int k) {
    if (bad < 0 && !pivot_ok(pivot, scale)) bad = k;
  };
  // Downward over rows 1 .. L-1: row k reads f x_s + bp x_k + c_k x_{k+1} = dd.
  T bp = r.b(1), f = r.a(1), dd = r.d(1);
  check(bp, abs_of(bp), 1);
  // Upward over rows L-1 .. 1: row k reads a_k x_{k-1} + bu x_k + g x_e = u.
  T bu = r.b(L - 1), g = r.c(L - 1), u = r.d(L - 1);
  check(bu, abs_of(bu), L - 1);
#pragma unroll
  for (int j = 0; j < kPartRows - 3; ++j) {
    {
      const int k = 2 + j;
      const T q = r.a(k) * reciprocal(bp);
      const T tt = q * r.c(k - 1);
      bp = r.b(k) - tt;
      check(bp, abs_of(r.b(k)) + abs_of(tt), k);
      f = -q * f;
      dd = r.d(k) - q * dd;
    }
    {
      const int k = L - 2 - j;
      const T q = r.c(k) * reciprocal(bu);
      const T tt = q * r.a(k + 1);
      bu = r.b(k) - tt;
      check(bu, abs_of(r.b(k)) + abs_of(tt), k);
      g = -q * g;
      u = r.d(k) - q * u;
    }
  }
  if (bad >= 0) record(flag, original_row(s + bad, depth));
  const T qe = r.a(L) * reciprocal(bp), qs = r.c(0) * reciprocal(bu);
  const std::int64_t i0 = 2 * p, i1 = i0 + 1;
  ra[i0] = r.a(0), rb[i0] = r.b(0) - qs * r.a(1), rc[i0] = -qs * g, rd[i0] = r.d(0) - qs * u;
  ra[i1] = -qe * f, rb[i1] = r.b(L) - qe * r.c(L - 1), rc[i1] = r.c(L), rd[i1] = r.d(L) - qe * dd;
}

template <class T>
__global__ void __launch_bounds__(kPartThreads)
    partition_finish_kernel(std::int64_t n, std::int64_t sys_n, const T* a, const T* b, const T* c,
                            T* d, const T* rx) {
  extern __shared__ unsigned char smem_raw[];
  T* sm = reinterpret_cast<T*>(smem_raw);
  const std::int64_t r0 = std::int64_t(blockIdx.x) * kChunk;
  stage_chunk<T>(r0, n, a, b, c, d, sm);
  const int t = int(threadIdx.x);
  const std::int64_t s = r0 + t * kPartRows, p = s / kPartRows;
  if (s < n) {
    const PartRows<T> r(sm, t, s, sys_n);
    constexpr int L = kPartRows - 1;
    const T xs = rx[2 * p], xe = rx[2 * p + 1];
    // Thomas over rows 1 .. L-1 with x_0 = xs and x_L = xe moved to the right-hand side;
    // its pivots are the reduction's downward ones, checked there.
    T cp[kPartRows], dp[kPartRows];
    T inv = reciprocal(r.b(1));
    cp[1] = r.c(1) * inv;
    dp[1] = (r.d(1) - r.a(1) * xs) * inv;
#pragma unroll
    for (int k = 2; k < L; ++k) {
      const T ak = r.a(k);
      inv = reciprocal(r.b(k) - ak * cp[k - 1]);
      cp[k] = r.c(k) * inv;
      const T rhs = k == L - 1 ? r.d(k) - r.c(k) * xe : r.d(k);
      dp[k] = (rhs - ak * dp[k - 1]) * inv;
    }
    T* sx = sm + 3 * kPaddedChunk + r.base;  // over this partition's own d
    T x = dp[L - 1];
    sx[L - 1] = x;
#pragma unroll
    for (int k = L - 2; k >= 1; --k) {
      x = dp[k] - cp[k] * x;
      sx[k] = x;
    }
    sx[0] = xs, sx[L] = xe;
  }
  __syncthreads();
  const std::int64_t left = n - r0;
  const int rows = left < kChunk ? int(left) : kChunk;
#pragma unroll
  for (int j = 0; j < kPartRows; ++j) {
    const int i = j * kPartThreads + t;
    if (i < rows) d[r0 + i] = sm[3 * kPaddedChunk + padded(i)];
  }
}

template <class T>
void launch_cr_pcr(const Batch<T>& bt, int pcr_rows, Flag* flag, int depth = 0) {
  static const bool configured = [] {
    cudaFuncSetAttribute(cr_pcr_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         max_shared_bytes());
    return true;
  }();
  (void)configured;
  const int threads = pcr_rows >= bt.n ? std::max(32, (bt.n + 31) / 32 * 32)
                                       : std::min(512, std::max(32, (bt.n / 2 + 31) / 32 * 32));
  const std::size_t smem = 4 * std::size_t(bt.n) * sizeof(T);
  cr_pcr_kernel<T><<<bt.count, threads, smem>>>(bt, pcr_rows < 0 ? threads : pcr_rows, flag, depth);
  cuda::check_launch("cr-pcr tridiagonal kernel");
}

// Reduced-system storage for every level below a system of n rows, in elements.
std::size_t partition_work(std::int64_t n) {
  std::size_t total = 0;
  for (; n > kDirectRows; n = 2 * ((n + kPartRows - 1) / kPartRows))
    total += 4 * std::size_t((2 * ((n + kPartRows - 1) / kPartRows) + 31) / 32 * 32);
  return total;
}

// Solves n rows (systems of sys_n rows one after another) in place by partitions; the
// reduced system goes down a level until it fits one cr-pcr block.
template <class T>
void partitioned(std::int64_t n, std::int64_t sys_n, const T* a, const T* b, const T* c, T* d,
                 Flag* flag, T* work, int depth) {
  if (n <= kDirectRows) {
    launch_cr_pcr(Batch<T>{a, b, c, d, int(n), 1, Layout::strided}, -1, flag, depth);
    return;
  }
  const std::size_t smem = 4 * std::size_t(kPaddedChunk) * sizeof(T);
  static const bool configured = [smem] {
    cudaFuncSetAttribute(partition_reduce_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         int(smem));
    cudaFuncSetAttribute(partition_finish_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         int(smem));
    return true;
  }();
  (void)configured;
  const std::int64_t reduced = 2 * ((n + kPartRows - 1) / kPartRows);
  const std::size_t stride = std::size_t((reduced + 31) / 32 * 32);
  T *ra = work, *rb = ra + stride, *rc = rb + stride, *rd = rc + stride;
  const unsigned blocks = unsigned((n + kChunk - 1) / kChunk);
  partition_reduce_kernel<T>
      <<<blocks, kPartThreads, smem>>>(n, sys_n, a, b, c, d, ra, rb, rc, rd, flag, depth);
  cuda::check_launch("partitioned tridiagonal reduction");
  partitioned<T>(reduced, reduced, ra, rb, rc, rd, flag, rd + stride, depth + 1);
  partition_finish_kernel<T><<<blocks, kPartThreads, smem>>>(n, sys_n, a, b, c, d, rd);
  cuda::check_launch("partitioned tridiagonal fix-up");
}

// Interleaved batches by two passes over partitions of M rows (interleaved_partitions.cuh);
// the reduced batch (2 P rows per system) is solved on chip when it fits, else by the
// pipelined Thomas. A failed pivot there is reported at row 0 of its system.
template <class T, int M>
void interleaved_two_pass(const Batch<T>& bt, Flag* flag) {
  const int parts = (bt.n + M - 1) / M, rows = 2 * parts;
  const std::size_t stride = std::size_t(rows) * std::size_t(bt.count);
  T* ra = static_cast<T*>(scratch(3, 4 * stride * sizeof(T)));
  T *rb = ra + stride, *rc = rb + stride, *rd = rc + stride;
  Flag* reduced_flag = static_cast<Flag*>(scratch(4, sizeof(Flag)));
  cuda::check(cudaMemsetAsync(reduced_flag, 0xff, sizeof(Flag)), "memset");
  const std::int64_t threads = std::int64_t(parts) * bt.count;
  const unsigned blocks = unsigned((threads + 255) / 256);
  interleaved::reduce_partitions_kernel<T, M><<<blocks, 256>>>(bt, parts, ra, rb, rc, rd, flag);
  cuda::check_launch("interleaved partition reduction");
  const Batch<T> reduced{ra, rb, rc, rd, rows, bt.count, Layout::interleaved};
  if (rows <= interleaved::max_rows) {
    interleaved::solve_on_chip(reduced, reduced_flag);
  } else {
    const Geometry g{rows, bt.count, bt.count, 0, bt.count};
    launch_line_thomas(g, ArrayCoef<T>{{ra, rb, rc, rd}}, rd, reduced_flag);
  }
  cuda::check_launch("interleaved reduced systems");
  interleaved::finish_partitions_kernel<T, M><<<blocks, 256>>>(bt, parts, rd);
  cuda::check_launch("interleaved partition fix-up");
  // Map a reduced system's failure to its system: (s * rows + r) -> s * n.
  record_mapped<<<1, 1>>>(flag, reduced_flag, rows, bt.n);
}

}  // namespace

int cuda_shared_rows_limit(std::size_t elem_bytes) {
  return int(max_shared_bytes() / (4 * elem_bytes));
}

template <class T>
std::int64_t solve_cuda(const Batch<T>& bt, Method method, bool check) {
  Flag* flag = static_cast<Flag*>(scratch(0, sizeof(Flag)));
  cuda::check(cudaMemsetAsync(flag, 0xff, sizeof(Flag)), "memset");
  const int limit = cuda_shared_rows_limit(sizeof(T));
  switch (method) {
    case Method::thomas: {
      const bool strided = bt.layout == Layout::strided;
      const Geometry g{bt.n, bt.count, strided ? 1 : bt.count, strided ? bt.n : 0, bt.row_stride()};
      launch_line_thomas(g, ArrayCoef<T>{{bt.a, bt.b, bt.c, bt.d}}, bt.d, flag);
      break;
    }
    case Method::cyclic_reduction:
    case Method::cr_pcr:
    case Method::parallel_cyclic_reduction: {
      require(bt.n <= limit,
              fmt::format("the {} method keeps a system in shared memory: at most {} rows in this "
                          "precision, got {}; use partitioned or thomas",
                          to_string(method), limit, bt.n));
      int pcr_rows = -1;  // one row per thread
      if (method == Method::cyclic_reduction) pcr_rows = 1;
      if (method == Method::parallel_cyclic_reduction) {
        require(bt.n <= 512,
                fmt::format("the pcr method on the GPU takes at most 512 rows (one per "
                            "thread), got {}; use cr-pcr",
                            bt.n));
        pcr_rows = bt.n;
      }
      launch_cr_pcr(bt, pcr_rows, flag);
      break;
    }
    case Method::partitioned: {
      if (bt.layout == Layout::interleaved && bt.count > 1) {
        // Small batches, and systems of at most 64 rows, whole on chip in a block; larger
        // batches of systems of 65 to 4096 rows on chip in a cluster of blocks where the
        // device has clusters (else up to 256 rows in a block); the rest by two passes
        // over partitions of 16 rows (see interleaved_partitions.cuh and
        // interleaved_clusters.cuh for the measurements behind the limits).
        const std::int64_t unknowns = std::int64_t(bt.n) * bt.count;
        const auto on_chip = [&] {
          interleaved::solve_on_chip(bt, flag);
          cuda::check_launch("interleaved partitioned tridiagonal kernel");
        };
        if (bt.n < interleaved::cluster_min_rows ||
            (bt.n <= interleaved::max_rows && unknowns <= interleaved::on_chip_unknowns)) {
          on_chip();
        } else if (interleaved::clusters_fit<T>(bt.n)) {
          interleaved::launch_cluster_partitions<T>(bt, flag);
        } else if (bt.n <= interleaved::on_chip_rows) {
          on_chip();
        } else {
          interleaved_two_pass<T, 16>(bt, flag);
        }
        break;
      }
      const std::int64_t total = std::int64_t(bt.n) * bt.count;
      if (bt.n < kPartRows || total <= kDirectRows) {
        // Systems shorter than a partition, or all of them together within one block:
        // one cr-pcr block per system.
        launch_cr_pcr(bt, -1, flag);
        break;
      }
      if (bt.n <= strided::block_rows) {
        // Whole systems per block in one pass (an interleaved batch here is one system).
        strided::launch_strided_blocks(Batch<T>{bt.a, bt.b, bt.c, bt.d, bt.n, bt.count}, flag);
        break;
      }
      T* work = static_cast<T*>(scratch(2, sizeof(T) * partition_work(total)));
      partitioned<T>(total, bt.n, bt.a, bt.b, bt.c, bt.d, flag, work, 0);
      break;
    }
    default:
      throw Error("tridiagonal: no method chosen");
  }
  if (!check) return -1;
  Flag host = no_failure;
  cuda::check(cudaMemcpy(&host, flag, sizeof(Flag), cudaMemcpyDeviceToHost), "tridiagonal solve");
  return host == no_failure ? -1 : std::int64_t(host);
}

template <class T>
void solve_shifted_lines_cuda(const LineGeometry& lg, const ShiftedLines& lines, T* d) {
  const Geometry g{lg.n, lg.count, lg.inner, lg.outer, lg.row_stride};
  ShiftedCoef<T> coef{{d}, lines};
  launch_line_thomas(g, coef, d, static_cast<Flag*>(nullptr));
}

template void solve_shifted_lines_cuda<float>(const LineGeometry&, const ShiftedLines&, float*);
template void solve_shifted_lines_cuda<double>(const LineGeometry&, const ShiftedLines&, double*);
template std::int64_t solve_cuda<float>(const Batch<float>&, Method, bool);
template std::int64_t solve_cuda<double>(const Batch<double>&, Method, bool);

}  // namespace gridsolve::tridiag
