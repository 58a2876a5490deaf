// The sorting networks on the GPU for arrays below 2^23 keys and for batches of short
// arrays: a block sorts a tile of 8192 keys on chip (16 per thread): strides below 16
// inside a thread's registers, 16 to 256 by warp shuffles, longer ones after a transpose
// through shared memory. Strides of a tile or more are global passes, up to six stages
// merged in each (64 keys per thread in registers). Few passes are needed at these
// lengths, and keeping the short strides in registers makes each one cheap.
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/cuda_launch.cuh"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/sort/sort_backend.hpp"
#include "gridsolve/sort/sort_job.cuh"

namespace gridsolve::sort::detail {

namespace {

constexpr int kThreadBits = 9;
constexpr int kThreads = 1 << kThreadBits;  // per tile block
constexpr int kPer = 16;                    // keys per thread
constexpr int kTileBits = kThreadBits + 4;
constexpr int kTile = 1 << kTileBits;       // kThreads * kPer
constexpr int kSlots = kTile + kTile / 32;  // one padding slot per 32 avoids bank conflicts
constexpr int kPassThreads = 256;           // global passes, min-max and small kernels

struct NoValue {};
template <class V>
constexpr bool has_values = !std::is_same_v<V, NoValue>;

// Global stages merged per pass: 2^M keys per thread in registers (and as many payloads).
template <class V>
constexpr int kMaxMerged = has_values<V> ? 5 : 6;

__device__ __forceinline__ int slot(int i) {
  return i + (i >> 5);
}

template <class U, class V>
struct Regs {
  U k[kPer];
  V v[kPer];
};

// a holds the lower index; it ends with the smaller key when a_min. Strict comparisons:
// equal keys never move, so pads (the largest code) never pass a real key in the butterfly.
template <class U, class V>
__device__ __forceinline__ void exchange(U& ka, V& va, U& kb, V& vb, bool a_min) {
  if constexpr (!has_values<V>) {
    const bool swap = kb < ka;
    const U lo = swap ? kb : ka, hi = swap ? ka : kb;
    ka = a_min ? lo : hi, kb = a_min ? hi : lo;
    return;
  }
  if (a_min ? kb < ka : ka < kb) {
    const U t = ka;
    ka = kb, kb = t;
    if constexpr (has_values<V>) {
      const V w = va;
      va = vb, vb = w;
    }
  }
}

// The bitonic network sorts the block of 2^s holding `pos` downwards when bit s of pos is
// set, except in the last stage of the array (s == bits).
__device__ __forceinline__ bool downwards(ull pos, int s, int bits) {
  return s < bits && ((pos >> s) & 1);
}

// Layout A: thread t holds tile positions 16 t + j (strides 1..8 in registers, 16..256
// across the warp). Layout B: positions 512 j + t (strides 512..4096 in registers;
// coalesced global loads and stores).
template <class U, class V>
__device__ __forceinline__ void put_a(const Regs<U, V>& r, U* sk, V* sv) {
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    sk[slot(threadIdx.x * kPer + j)] = r.k[j];
    if constexpr (has_values<V>) sv[slot(threadIdx.x * kPer + j)] = r.v[j];
  }
}
template <class U, class V>
__device__ __forceinline__ void get_a(Regs<U, V>& r, const U* sk, const V* sv) {
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    r.k[j] = sk[slot(threadIdx.x * kPer + j)];
    if constexpr (has_values<V>) r.v[j] = sv[slot(threadIdx.x * kPer + j)];
  }
}
template <class U, class V>
__device__ __forceinline__ void put_b(const Regs<U, V>& r, U* sk, V* sv) {
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    sk[slot(j * kThreads + threadIdx.x)] = r.k[j];
    if constexpr (has_values<V>) sv[slot(j * kThreads + threadIdx.x)] = r.v[j];
  }
}
template <class U, class V>
__device__ __forceinline__ void get_b(Regs<U, V>& r, const U* sk, const V* sv) {
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    r.k[j] = sk[slot(j * kThreads + threadIdx.x)];
    if constexpr (has_values<V>) r.v[j] = sv[slot(j * kThreads + threadIdx.x)];
  }
}

// Layout A, stride 2^K < 16, inside the registers. Flip: the butterfly's first stage of
// outer stage K + 1 (j against its mirror in the block of 2^(K+1)).
template <int K, bool Flip, bool Bitonic, class U, class V>
__device__ __forceinline__ void regs_a(Regs<U, V>& r, int s, ull base, int bits) {
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    if (j & (1 << K)) continue;
    const int p = Flip ? (j ^ ((2 << K) - 1)) : (j | (1 << K));
    const bool up = !Bitonic || !downwards(base + j, s, bits);
    exchange(r.k[j], r.v[j], r.k[p], r.v[p], up);
  }
}

// Layout A, stride 2^K for K = 4..8, across the warp.
template <bool Flip, bool Bitonic, class U, class V>
__device__ __forceinline__ void shuffle_a(Regs<U, V>& r, int K, int s, ull base, int bits) {
  const int lane = threadIdx.x & 31;
  if constexpr (Flip) {
    // Mirror in the block of 2^(K+1): lane bits 0..K-4 and all register bits flip.
    const int mask = (1 << (K - 3)) - 1;
    const bool lower = !((lane >> (K - 4)) & 1);
    U pk[kPer];
    V pv[kPer];
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      pk[j] = __shfl_xor_sync(0xFFFFFFFFu, r.k[kPer - 1 - j], mask);
      if constexpr (has_values<V>) pv[j] = __shfl_xor_sync(0xFFFFFFFFu, r.v[kPer - 1 - j], mask);
    }
#pragma unroll
    for (int j = 0; j < kPer; ++j)
      if (lower ? pk[j] < r.k[j] : r.k[j] < pk[j]) {
        r.k[j] = pk[j];
        if constexpr (has_values<V>) r.v[j] = pv[j];
      }
  } else {
    const int mask = 1 << (K - 4);
    const bool lower = !(lane & mask);
    const bool keep_min = Bitonic ? lower != downwards(base, s, bits) : lower;
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const U pk = __shfl_xor_sync(0xFFFFFFFFu, r.k[j], mask);
      V pv{};
      if constexpr (has_values<V>) pv = __shfl_xor_sync(0xFFFFFFFFu, r.v[j], mask);
      if (keep_min ? pk < r.k[j] : r.k[j] < pk) {
        r.k[j] = pk;
        if constexpr (has_values<V>) r.v[j] = pv;
      }
    }
  }
}

// One stage in layout A, stride 2^K (K <= 8), the runtime K dispatched to registers.
template <bool Flip, bool Bitonic, class U, class V>
__device__ __forceinline__ void stage_a(Regs<U, V>& r, int K, int s, ull base, int bits) {
  switch (K) {
    case 0:
      regs_a<0, Flip, Bitonic>(r, s, base, bits);
      break;
    case 1:
      regs_a<1, Flip, Bitonic>(r, s, base, bits);
      break;
    case 2:
      regs_a<2, Flip, Bitonic>(r, s, base, bits);
      break;
    case 3:
      regs_a<3, Flip, Bitonic>(r, s, base, bits);
      break;
    default:
      shuffle_a<Flip, Bitonic>(r, K, s, base, bits);
  }
}

// Layout B, stride 2^(kThreadBits + K8), inside the registers.
template <int K8, bool Bitonic, class U, class V>
__device__ __forceinline__ void regs_b(Regs<U, V>& r, int s, ull tile_first, int bits) {
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    if (j & (1 << K8)) continue;
    const int p = j | (1 << K8);
    const bool up = !Bitonic || !downwards(tile_first + ull(j) * kThreads + threadIdx.x, s, bits);
    exchange(r.k[j], r.v[j], r.k[p], r.v[p], up);
  }
}

template <bool Bitonic, class U, class V>
__device__ __forceinline__ void stage_b(Regs<U, V>& r, int K, int s, ull tile_first, int bits) {
  switch (K - kThreadBits) {
    case 0:
      regs_b<0, Bitonic>(r, s, tile_first, bits);
      break;
    case 1:
      regs_b<1, Bitonic>(r, s, tile_first, bits);
      break;
    case 2:
      regs_b<2, Bitonic>(r, s, tile_first, bits);
      break;
    default:
      regs_b<3, Bitonic>(r, s, tile_first, bits);
  }
}

// The butterfly's flip for blocks of 2^s, s = 10..13, in shared memory.
template <class U, class V>
__device__ __forceinline__ void flip_shared(U* sk, V* sv, int s) {
  const int half = 1 << (s - 1), mirror = (1 << s) - 1;
  for (int q = threadIdx.x; q < kTile / 2; q += kThreads) {
    const int i = ((q >> (s - 1)) << s) | (q & (half - 1)), p = i ^ mirror;
    const U a = sk[slot(i)], b = sk[slot(p)];
    if (b < a) {
      sk[slot(i)] = b, sk[slot(p)] = a;
      if constexpr (has_values<V>) {
        const V t = sv[slot(i)];
        sv[slot(i)] = sv[slot(p)], sv[slot(p)] = t;
      }
    }
  }
}

// Sorts tiles (outer stages 1..min(seg_bits, 13); segments of up to a tile are sorted
// completely, several per tile) or, with merge_stage s > 0, runs strides 2^12..1 of stage s.
template <bool Bitonic, class U, class V>
__global__ void __launch_bounds__(kThreads) tile_kernel(SegmentArgs<U> a, int merge_stage) {
  extern __shared__ __align__(16) unsigned char smem[];
  U* sk = reinterpret_cast<U*>(smem);
  V* sv = reinterpret_cast<V*>(sk + kSlots);
  const int t = threadIdx.x;
  const ull tile_first = ull(blockIdx.x) * kTile;
  const ull seg_mask = (ull(1) << a.seg_bits) - 1;
  const int bits = a.seg_bits;
  Regs<U, V> r;
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const ull pos = tile_first + ull(j) * kThreads + t;
    const ull seg = pos >> bits, off = pos & seg_mask;
    if (seg < a.seg_count && off < a.load_len) {
      const ull at = seg * a.seg_stride + off;
      r.k[j] = encode_bits(a.kin[at], a.kind) ^ a.flip;
      if constexpr (has_values<V>) r.v[j] = a.vin[at];
    } else {
      r.k[j] = ~U(0);
      if constexpr (has_values<V>) r.v[j] = 0;
    }
  }
  const ull base_a = tile_first + ull(t) * kPer;
  if (merge_stage > 0) {
    const int s = merge_stage;
    for (int K = kTileBits - 1; K >= kThreadBits; --K) stage_b<Bitonic>(r, K, s, tile_first, bits);
    __syncthreads();
    put_b(r, sk, sv);
    __syncthreads();
    get_a(r, sk, sv);
    for (int K = kThreadBits - 1; K >= 0; --K) stage_a<false, Bitonic>(r, K, s, base_a, bits);
  } else {
    put_b(r, sk, sv);
    __syncthreads();
    get_a(r, sk, sv);
    const int last = min(bits, kTileBits);
    for (int s = 1; s <= min(last, 9); ++s) {
      if constexpr (Bitonic)
        stage_a<false, true>(r, s - 1, s, base_a, bits);
      else
        stage_a<true, false>(r, s - 1, s, base_a, bits);
      for (int K = s - 2; K >= 0; --K) stage_a<false, Bitonic>(r, K, s, base_a, bits);
    }
    for (int s = 10; s <= last; ++s) {
      __syncthreads();
      put_a(r, sk, sv);
      __syncthreads();
      int K = s - 1;
      if constexpr (!Bitonic) {
        flip_shared(sk, sv, s);
        __syncthreads();
        --K;
      }
      if (K >= kThreadBits) {
        get_b(r, sk, sv);
        for (; K >= kThreadBits; --K) stage_b<Bitonic>(r, K, s, tile_first, bits);
        __syncthreads();
        put_b(r, sk, sv);
        __syncthreads();
      }
      get_a(r, sk, sv);
      for (K = kThreadBits - 1; K >= 0; --K) stage_a<false, Bitonic>(r, K, s, base_a, bits);
    }
  }
  __syncthreads();
  put_a(r, sk, sv);
  __syncthreads();
  get_b(r, sk, sv);
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const ull pos = tile_first + ull(j) * kThreads + t;
    const ull seg = pos >> bits, off = pos & seg_mask;
    if (seg < a.seg_count && off < a.store_len) {
      const ull at = seg * a.seg_stride + off;
      a.kout[at] = decode_bits(U(r.k[j] ^ a.flip), a.kind);
      if constexpr (has_values<V>) a.vout[at] = r.v[j];
    }
  }
}

template <class U>
struct GlobalArgs {
  U* keys;
  std::uint32_t* values;
  KeyKind kind;
  U flip;
  ull n;            // positions at or above n hold no data (butterfly: never touched)
  int s;            // outer stage
  int k_hi;         // the longest stride of this pass is 2^k_hi
  int bits;         // log2 of the padded length
  bool flip_first;  // butterfly: the pass starts outer stage s with its flip
};

// M consecutive stages of strides 2^k_hi .. 2^(k_hi - M + 1) in one pass: each thread
// holds the 2^M keys these comparators connect.
template <int M, bool Bitonic, class U, class V>
__global__ void __launch_bounds__(kPassThreads) global_kernel(GlobalArgs<U> a) {
  constexpr int R = 1 << M;
  const ull g = ull(blockIdx.x) * kPassThreads + threadIdx.x;
  const int k_lo = a.k_hi - M + 1;
  const ull base = ((g >> k_lo) << (a.k_hi + 1)) | (g & ((ull(1) << k_lo) - 1));
  const ull mirror = (ull(1) << a.s) - 1;
  // The position register r holds (recomputed at the store: fewer live registers).
  const auto at = [&](int r) {
    const bool top = (r >> (M - 1)) & 1;
    return a.flip_first ? (base ^ (top ? mirror : 0) ^ (ull(r & (R / 2 - 1)) << k_lo))
                        : (base | (ull(r) << k_lo));
  };
  U k[R];
  V v[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const ull p = at(r);
    if (p < a.n) {
      k[r] = encode_bits(a.keys[p], a.kind) ^ a.flip;
      if constexpr (has_values<V>) v[r] = a.values[p];
    } else {
      k[r] = ~U(0);
      if constexpr (has_values<V>) v[r] = 0;
    }
  }
  const bool down = Bitonic && downwards(base, a.s, a.bits);
#pragma unroll
  for (int st = M - 1; st >= 0; --st)
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (r & (1 << st)) continue;
      // After the flip, the upper half of the registers holds mirrored positions, where
      // register r sits above register r + 2^st.
      const bool lower = !(a.flip_first && ((r >> (M - 1)) & 1));
      exchange(k[r], v[r], k[r | (1 << st)], v[r | (1 << st)], lower != down);
    }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const ull p = at(r);
    if (p < a.n) {
      a.keys[p] = decode_bits(U(k[r] ^ a.flip), a.kind);
      if constexpr (has_values<V>) a.values[p] = v[r];
    }
  }
}

template <bool Bitonic, class U, class V>
void launch_tile(const SegmentArgs<U>& a, int merge_stage, ull tiles) {
  const int bytes = kSlots * int(sizeof(U) + (has_values<V> ? sizeof(V) : 0));
  static const bool configured = [&] {
    cuda::check(cudaFuncSetAttribute(tile_kernel<Bitonic, U, V>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
                "sort tile kernel shared memory");
    return true;
  }();
  (void)configured;
  tile_kernel<Bitonic, U, V><<<unsigned(tiles), kThreads, bytes>>>(a, merge_stage);
  cuda::check_launch("sort tile kernel");
}

template <int M, bool Bitonic, class U, class V>
void launch_global(const GlobalArgs<U>& a, ull padded) {
  const ull threads = padded >> M;
  global_kernel<M, Bitonic, U, V>
      <<<unsigned((threads + kPassThreads - 1) / kPassThreads), kPassThreads>>>(a);
  cuda::check_launch("sort global pass");
}

template <bool Bitonic, class U, class V>
void launch_global_m(int m, const GlobalArgs<U>& a, ull padded) {
  switch (m) {
    case 1:
      launch_global<1, Bitonic, U, V>(a, padded);
      break;
    case 2:
      launch_global<2, Bitonic, U, V>(a, padded);
      break;
    case 3:
      launch_global<3, Bitonic, U, V>(a, padded);
      break;
    case 4:
      launch_global<4, Bitonic, U, V>(a, padded);
      break;
    case 5:
      launch_global<5, Bitonic, U, V>(a, padded);
      break;
    default:
      if constexpr (kMaxMerged<V> >= 6) launch_global<6, Bitonic, U, V>(a, padded);
  }
}

// The kernels of a full-array sort, to run some of them alone (timing: a network's work
// does not depend on the keys).
enum Phase : unsigned { tile_phase = 1, global_phase = 2, merge_phase = 4, all_phases = 7 };

// One array: in[0, n) sorted into out, whose first `stored` positions are written
// (stored = padded for the bitonic network's padded copy).
template <bool Bitonic, class U, class V>
int sort_array(const Job& job, const U* in, U* out, const std::uint32_t* vin, std::uint32_t* vout,
               ull n, ull stored, unsigned phases = all_phases) {
  int launches = 0;  // of the phases asked for
  const int bits = ceil_log2(std::size_t(n));
  const ull padded = ull(1) << bits;
  const U flip = job.descending ? ~U(0) : U(0);
  const SegmentArgs<U> t{in, out, vin, vout, job.kind, flip, 0, n, stored, 1, bits};
  if (phases & tile_phase)
    launch_tile<Bitonic, U, V>(t, 0, std::max<ull>(1, padded >> kTileBits)), ++launches;
  for (int s = kTileBits + 1; s <= bits; ++s) {
    // Strides 2^(s-1) .. 2^13 in as few passes as possible, of near-equal depth.
    const int strides = s - kTileBits;
    const int passes = (strides + kMaxMerged<V> - 1) / kMaxMerged<V>;
    int k = s - 1;
    for (int p = 0; p < passes; ++p) {
      const int m = strides / passes + (p < strides % passes ? 1 : 0);
      const GlobalArgs<U> g{out, vout, job.kind, flip, stored, s, k, bits, !Bitonic && p == 0};
      if (phases & global_phase) launch_global_m<Bitonic, U, V>(m, g, padded), ++launches;
      k -= m;
    }
    const SegmentArgs<U> mt{out, out, vout, vout, job.kind, flip, 0, stored, stored, 1, bits};
    if (phases & merge_phase) launch_tile<Bitonic, U, V>(mt, s, padded >> kTileBits), ++launches;
  }
  return launches;
}

template <bool Bitonic, class U, class V>
void sort_job(const Job& job) {
  const ull len = job.length, count = job.count;
  run_sort_job<Bitonic, U, V>(
      job, kTile,
      [&](const U* in, U* out, U flip, int bits) {
        // Whole segments on chip, kTile / padded of them per block.
        const SegmentArgs<U> t{in,  out, job.values_in, job.values_out, job.kind, flip,
                               len, len, len,           count,          bits};
        launch_tile<Bitonic, U, V>(t, 0, (count * (ull(1) << bits) + kTile - 1) / kTile);
      },
      [&](const U* in, U* out, const std::uint32_t* vin, std::uint32_t* vout, ull n, ull stored) {
        sort_array<Bitonic, U, V>(job, in, out, vin, vout, n, stored);
      });
}

// sort_job with the job's network, key width and payload.
struct SortJob {
  template <bool Bitonic, class U, class V>
  void operator()(const Job& job) const {
    sort_job<Bitonic, U, V>(job);
  }
};

}  // namespace

void sort_cuda_short(const Job& job) {
  dispatch_sort_job<NoValue>(job, SortJob{});
}

}  // namespace gridsolve::sort::detail
