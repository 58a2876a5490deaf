// The sorting networks on the GPU, in passes over memory planned by sort_plan.hpp: each
// pass gathers a tile of 2^14 keys (2^13 with payloads or 8-byte keys) into shared
// memory, runs its comparator layers there in register rounds of 16 keys per thread, and
// writes the tile back. The first pass sorts contiguous tiles; each later pass merges
// long strides (gathered tiles) and short ones together.
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <type_traits>
#include <vector>

#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/cuda_launch.cuh"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/sort/sort_backend.hpp"
#include "gridsolve/sort/sort_job.cuh"
#include "gridsolve/sort/sort_plan.hpp"
#include "gridsolve/sort/sort_tile.hpp"

namespace gridsolve::sort::detail {

namespace {

// Tile bits: 64 KiB of shared memory per tile of 4-byte keys or 8-byte key-value pairs or
// keys (96 KiB for double keys with payloads), so that three tiles share an SM.
template <class U, class V>
constexpr int kTileBits = sizeof(U) == 4 && !has_values<V> ? 14 : 13;
template <class U, class V>
constexpr int kTileKeyBytes = int(sizeof(U)) + (has_values<V> ? 4 : 0);  // shared memory a key

// One pass of the plan over the tiles (one block each; sort_tile.hpp has the arithmetic).
// Segmented: the contiguous tile pass of a batched sort (segments of 2^seg_bits positions,
// seg_stride keys apart).
template <int TB, bool Segmented, class U, class V>
__global__ void __launch_bounds__(kPassThreads)
    pass_kernel(SegmentArgs<U> a, const PlanPass* __restrict__ plan) {
  constexpr unsigned kTile = 1u << TB;
  constexpr int kPerThread = kTile / kPassThreads;
  static_assert(kPassThreads == 256 && TB > 8, "tile positions: thread bits 0..7");
  extern __shared__ __align__(16) unsigned char smem[];
  U* sk = reinterpret_cast<U*>(smem);
  V* sv = reinterpret_cast<V*>(sk + kTile);
  StepCode* codes = reinterpret_cast<StepCode*>(smem + kTile * kTileKeyBytes<U, V>);
  const unsigned t = threadIdx.x, block = blockIdx.x;
  // The plan, read once by all threads together (not round by round by each).
  constexpr int kPlanWords = sizeof(PlanPass) / sizeof(int);
  __shared__ int plan_words[kPlanWords];
  for (int i = int(t); i < kPlanWords; i += kPassThreads)
    plan_words[i] = reinterpret_cast<const int*>(plan)[i];
  __syncthreads();
  const PlanPass& pass = *reinterpret_cast<const PlanPass*>(plan_words);
  const int nrounds = pass.nrounds;
  const TileMap map(TB, pass.low_bits, pass.high_at, pass.mirror, block);
  for (int r = 0; r < nrounds; ++r) {
    const PlanRound& rd = pass.rounds[r];
    if (int(t) < rd.count) {
      const PlanStep& st = pass.steps[rd.first + t];
      codes[rd.first + t] =
          step_code(rd, st, st.dir_global_bit >= 0 ? map.block_bit(st.dir_global_bit) : 0u);
    }
  }

  // Load, asynchronously (every copy of the tile in flight at once): lanes take
  // consecutive tile positions, consecutive in memory. Empty positions get the key
  // that encodes to the largest code.
  const U pad = decode_bits(U(~U(0) ^ a.flip), a.kind);
  const unsigned part = map.thread_part(t), slot_t = slot(t);
#pragma unroll 16
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned c = unsigned(i) * kPassThreads, at_slot = slot_t ^ slot(c);
    ull at = 0;
    bool valid;
    if constexpr (Segmented) {
      const ull g = (ull(block) << TB) | (c | t);
      const ull seg = g >> a.seg_bits, off = g & ((ull(1) << a.seg_bits) - 1);
      valid = seg < a.seg_count && off < a.load_len;
      at = seg * a.seg_stride + off;
    } else {
      at = map.position(part, c);
      valid = at < a.load_len;
    }
    if (valid) {
      __pipeline_memcpy_async(&sk[at_slot], &a.kin[at], sizeof(U));
      if constexpr (has_values<V>) __pipeline_memcpy_async(&sv[at_slot], &a.vin[at], sizeof(V));
    } else {
      sk[at_slot] = pad;
      if constexpr (has_values<V>) sv[at_slot] = 0;
    }
  }
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();

  for (int r = 0; r < nrounds; ++r) {
    const PlanRound& rd = pass.rounds[r];
    unsigned e[kWindowBits];
    round_offsets(rd, e);
    const KeyCoding<U> coding{a.kind, a.flip, r == 0, r == nrounds - 1};
    for (unsigned q = t; q < kTile / kRoundKeys; q += kPassThreads)
      run_group(sk, sv, codes, rd.first, rd.first + rd.count, rd.window, e, q, coding);
    __syncthreads();
  }

#pragma unroll 16
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned c = unsigned(i) * kPassThreads;
    if constexpr (Segmented) {
      const ull g = (ull(block) << TB) | (c | t);
      const ull seg = g >> a.seg_bits, off = g & ((ull(1) << a.seg_bits) - 1);
      if (seg < a.seg_count && off < a.store_len) {
        a.kout[seg * a.seg_stride + off] = sk[slot_t ^ slot(c)];
        if constexpr (has_values<V>) a.vout[seg * a.seg_stride + off] = sv[slot_t ^ slot(c)];
      }
    } else {
      const unsigned g = map.position(part, c);
      if (g < a.store_len) {
        a.kout[g] = sk[slot_t ^ slot(c)];
        if constexpr (has_values<V>) a.vout[g] = sv[slot_t ^ slot(c)];
      }
    }
  }
}

// Every plan the kernels can be asked for (both networks, tiles of 2^11 to 2^14, 1 to
// 2^31 keys), built once and kept on the device: a pass reads its steps from there (the
// same address for every thread: cached broadcasts).
class PlanTable {
 public:
  static const PlanTable& get() {
    static const PlanTable table;
    return table;
  }
  // The passes sorting 2^bits positions in tiles of 2^tile_bits; host and device copies.
  const std::vector<PlanPass>& host(int tile_bits, bool bitonic, int bits) const {
    return plans_[index(tile_bits, bitonic, bits)];
  }
  const PlanPass* device(int tile_bits, bool bitonic, int bits) const {
    return device_ + first_[index(tile_bits, bitonic, bits)];
  }

 private:
  static constexpr int kMaxBits = 31;
  static int index(int tile_bits, bool bitonic, int bits) {
    return ((tile_bits - 11) * 2 + int(bitonic)) * (kMaxBits + 1) + bits;
  }
  PlanTable() {
    std::vector<PlanPass> all;
    for (int tb : {11, 12, 13, 14})
      for (bool bitonic : {false, true})
        for (int bits = 0; bits <= kMaxBits; ++bits) {
          plans_.push_back(plan_sort(bits, tb, bitonic));
          first_.push_back(all.size());
          all.insert(all.end(), plans_.back().begin(), plans_.back().end());
        }
    // Kept for the life of the process, like the CUDA context.
    device_ = static_cast<PlanPass*>(allocate_bytes(Device::cuda, all.size() * sizeof(PlanPass)));
    copy_bytes(device_, Device::cuda, all.data(), Device::cpu, all.size() * sizeof(PlanPass));
  }
  std::vector<std::vector<PlanPass>> plans_;
  std::vector<std::size_t> first_;
  PlanPass* device_ = nullptr;
};

template <int TB, bool Segmented, class U, class V>
void launch_pass_tb(const SegmentArgs<U>& a, const PlanPass* plan, ull blocks) {
  const int bytes = (1 << TB) * kTileKeyBytes<U, V> + kMaxSteps * int(sizeof(StepCode));
  static const bool configured = [&] {
    cuda::check(cudaFuncSetAttribute(pass_kernel<TB, Segmented, U, V>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
                "sort pass shared memory");
    return true;
  }();
  (void)configured;
  pass_kernel<TB, Segmented, U, V><<<unsigned(blocks), kPassThreads, bytes>>>(a, plan);
  cuda::check_launch("sort pass");
}

// Tiles of 2^tile_bits keys: kTileBits, or as small as 2^kSmallTileBits for short arrays
// (one block, no work on empty positions).
constexpr int kSmallTileBits = 11;
template <bool Segmented, class U, class V>
void launch_pass(const SegmentArgs<U>& a, const PlanPass* plan, ull blocks, int tile_bits) {
  if constexpr (Segmented) {
    launch_pass_tb<kTileBits<U, V>, true, U, V>(a, plan, blocks);
  } else if (tile_bits == 11) {
    launch_pass_tb<11, false, U, V>(a, plan, blocks);
  } else if (tile_bits == 12) {
    launch_pass_tb<12, false, U, V>(a, plan, blocks);
  } else if (kTileBits<U, V> == 14 && tile_bits == 14) {
    launch_pass_tb<kTileBits<U, V>, false, U, V>(a, plan, blocks);
  } else {
    launch_pass_tb<13, false, U, V>(a, plan, blocks);
  }
}

// The kernels of a full-array sort, to run some of them alone (timing: a network's work
// does not depend on the keys): the tile sort, the gathered passes (long strides, with
// the previous stage's tail where it fits), the contiguous merges (a stage's tail alone).
enum Phase : unsigned { tile_phase = 1, global_phase = 2, merge_phase = 4, all_phases = 7 };

// One array: in[0, n) sorted into out, whose first `stored` positions are written
// (stored = padded for the bitonic network's padded copy).
template <bool Bitonic, class U, class V>
int sort_array(const Job& job, const U* in, U* out, const std::uint32_t* vin, std::uint32_t* vout,
               ull n, ull stored, unsigned phases = all_phases) {
  int launches = 0;  // of the phases asked for
  const int bits = ceil_log2(std::size_t(n));
  const int TB = std::clamp(bits, kSmallTileBits, kTileBits<U, V>);
  const ull blocks = std::max<ull>(1, (ull(1) << bits) >> TB);
  const U flip = job.descending ? ~U(0) : U(0);
  const PlanTable& table = PlanTable::get();
  const std::vector<PlanPass>& plan = table.host(TB, Bitonic, bits);
  const PlanPass* dplan = table.device(TB, Bitonic, bits);
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const bool first = i == 0;
    const unsigned phase = first ? tile_phase : plan[i].contiguous ? merge_phase : global_phase;
    const SegmentArgs<U> a{first ? in : out,
                           out,
                           first ? vin : vout,
                           vout,
                           job.kind,
                           flip,
                           0,
                           first ? n : stored,
                           stored,
                           1,
                           bits};
    if (phases & phase) launch_pass<false, U, V>(a, dplan + i, blocks, TB), ++launches;
  }
  return launches;
}

template <bool Bitonic, class U, class V>
void sort_job(const Job& job) {
  const ull len = job.length, count = job.count;
  constexpr int TB = kTileBits<U, V>;
  run_sort_job<Bitonic, U, V>(
      job, (ull(1) << TB),
      [&](const U* in, U* out, U flip, int bits) {
        // Whole segments on chip, 2^TB / padded of them per block.
        const SegmentArgs<U> a{in,  out, job.values_in, job.values_out, job.kind, flip,
                               len, len, len,           count,          bits};
        launch_pass<true, U, V>(a, PlanTable::get().device(TB, Bitonic, bits),
                                (count * (ull(1) << bits) + (ull(1) << TB) - 1) >> TB, TB);
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

template <class U>
__device__ __forceinline__ U lesser(U a, U b) {
  return b < a ? b : a;
}
template <class U>
__device__ __forceinline__ U greater(U a, U b) {
  return a < b ? b : a;
}

// The min-max butterfly: the first stage compare-exchanges i against i + n/2 (the smaller
// to the min side, the larger to the max side), the later stages reduce both sides; inside
// a warp those are xor-shuffle butterflies. Blocks combine by atomics on the ordered codes.
template <bool Butterfly, class U>
__global__ void __launch_bounds__(kPassThreads)
    min_max_kernel(const U* keys, ull n, KeyKind kind, U* result) {
  constexpr int W = 16 / sizeof(U);  // keys per 16-byte load
  U lo = ~U(0), hi = 0;
  const ull stride = ull(gridDim.x) * kPassThreads;
  const ull first = ull(blockIdx.x) * kPassThreads + threadIdx.x;
  const auto pair = [&](U a, U b) {  // one compare-exchange of the first stage
    const bool le = a < b;
    lo = lesser(lo, le ? a : b);
    hi = greater(hi, le ? b : a);
  };
  const auto one = [&](U c) { lo = lesser(lo, c), hi = greater(hi, c); };
  const auto load = [&](ull v, U(&x)[W]) {
    const uint4 q = reinterpret_cast<const uint4*>(keys)[v];
    memcpy(x, &q, sizeof q);
  };
  // 16-byte loads where the array is aligned for them, then the rest key by key.
  ull done = 0;
  if (reinterpret_cast<std::uintptr_t>(keys) % 16 == 0) {
    U x[W], y[W];
    if constexpr (Butterfly) {
      const ull vecs = n / (2 * W);  // per half
      for (ull i = first; i < vecs; i += stride) {
        load(i, x), load(i + vecs, y);
#pragma unroll
        for (int w = 0; w < W; ++w) pair(encode_bits(x[w], kind), encode_bits(y[w], kind));
      }
      done = 2 * vecs * W;
    } else {
      const ull vecs = n / W;
      for (ull i = first; i < vecs; i += stride) {
        load(i, x);
#pragma unroll
        for (int w = 0; w < W; ++w) one(encode_bits(x[w], kind));
      }
      done = vecs * W;
    }
  }
  const ull rest = n - done, half = rest / 2;
  if constexpr (Butterfly) {
    for (ull i = first; i < half; i += stride)
      pair(encode_bits(keys[done + i], kind), encode_bits(keys[done + half + i], kind));
    if ((rest & 1) && first == 0) one(encode_bits(keys[n - 1], kind));
  } else {
    for (ull i = first; i < rest; i += stride) one(encode_bits(keys[done + i], kind));
  }
#pragma unroll
  for (int m = 16; m >= 1; m /= 2) {
    lo = lesser(lo, __shfl_xor_sync(0xFFFFFFFFu, lo, m));
    hi = greater(hi, __shfl_xor_sync(0xFFFFFFFFu, hi, m));
  }
  __shared__ U wlo[kPassThreads / 32], whi[kPassThreads / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) wlo[warp] = lo, whi[warp] = hi;
  __syncthreads();
  if (warp == 0) {
    lo = lane < kPassThreads / 32 ? wlo[lane] : ~U(0);
    hi = lane < kPassThreads / 32 ? whi[lane] : U(0);
#pragma unroll
    for (int m = 4; m >= 1; m /= 2) {
      lo = lesser(lo, __shfl_xor_sync(0xFFFFFFFFu, lo, m));
      hi = greater(hi, __shfl_xor_sync(0xFFFFFFFFu, hi, m));
    }
    if (lane == 0) {
      atomicMin(reinterpret_cast<std::conditional_t<sizeof(U) == 8, ull, unsigned>*>(result), lo);
      atomicMax(reinterpret_cast<std::conditional_t<sizeof(U) == 8, ull, unsigned>*>(result + 1),
                hi);
    }
  }
}

template <class U>
MinMaxCodes min_max_typed(const U* keys, KeyKind kind, ull n, MinMaxMethod method) {
  static U* result = static_cast<U*>(allocate_bytes(Device::cuda, 2 * sizeof(ull)));
  cuda::check(cudaMemsetAsync(result, 0xFF, sizeof(U)), "min-max init");
  cuda::check(cudaMemsetAsync(result + 1, 0, sizeof(U)), "min-max init");
  static_assert(kJobThreads == kPassThreads, "grid_stride_blocks counts blocks of this size");
  const int blocks = grid_stride_blocks(method == MinMaxMethod::butterfly ? n / 2 + 1 : n);
  if (method == MinMaxMethod::butterfly)
    min_max_kernel<true><<<blocks, kPassThreads>>>(keys, n, kind, result);
  else
    min_max_kernel<false><<<blocks, kPassThreads>>>(keys, n, kind, result);
  cuda::check_launch("min-max kernel");
  U host[2];
  cuda::check(cudaMemcpy(host, result, sizeof host, cudaMemcpyDeviceToHost), "min-max result");
  return {host[0], host[1]};
}

}  // namespace

int butterfly_phases_cuda(float* keys, std::size_t n, unsigned phases) {
  Job job;
  job.keys_in = keys;
  job.keys_out = keys;
  job.length = n;
  const auto k = reinterpret_cast<std::uint32_t*>(keys);
  return sort_array<false, std::uint32_t, NoValue>(job, k, k, nullptr, nullptr, n, n, phases);
}

void sort_cuda(const Job& job) {
  // Below 2^23 keys the register kernels of sort_cuda_short.cu need few passes and do
  // each in registers and warp shuffles (2x faster from 2^10 to 2^21 on an H100);
  // longer arrays need fewer passes over memory here (1.3x at 2^25, pairs 1.7x). Batches
  // of arrays that fit its 8192-key tile stay there too.
  const bool longer = job.count == 1 ? job.length >= (std::size_t(1) << 23) : job.length > 8192;
  if (!longer) return sort_cuda_short(job);
  dispatch_sort_job<NoValue>(job, SortJob{});
}

MinMaxCodes min_max_cuda(const void* keys, KeyKind kind, std::size_t n, MinMaxMethod method) {
  if (kind == KeyKind::f64)
    return min_max_typed(static_cast<const std::uint64_t*>(keys), kind, n, method);
  return min_max_typed(static_cast<const std::uint32_t*>(keys), kind, n, method);
}

}  // namespace gridsolve::sort::detail
