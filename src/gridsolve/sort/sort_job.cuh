// One GPU sort job, whichever kernels sort the arrays: the bitonic payload repair around
// it, segments that fit on chip in one launch, longer arrays one at a time (the bitonic
// network on a padded copy). Shared by the register kernels and the pass-planned ones.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/cuda_launch.cuh"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/sort/ordered_key.hpp"
#include "gridsolve/sort/sort_backend.hpp"

namespace gridsolve::sort::detail {

namespace {

using ull = unsigned long long;

constexpr int kJobThreads = 256;  // threads of the repair kernels

// Where a sort kernel reads and writes the segments of one job: keys (and payloads) in and
// out, the key kind, the direction, and the layout of the segments. A single array is one
// segment of load_len keys.
template <class U>
struct SegmentArgs {
  const U* kin;
  U* kout;
  const std::uint32_t* vin;
  std::uint32_t* vout;
  KeyKind kind;
  U flip;          // all ones for a descending sort
  ull seg_stride;  // address distance between segments
  ull load_len;    // keys per segment in the input
  ull store_len;   // keys per segment written
  ull seg_count;
  int seg_bits;  // log2 of the padded segment length
};

// Bitonic payload repair (see sort_cpu.cpp): before the sort, the payloads of keys equal
// to the padding code are set aside per segment; afterwards they fill the segment's last
// places, where those keys end.
template <class U>
__global__ void set_aside_kernel(const U* keys, const std::uint32_t* values, KeyKind kind, U flip,
                                 ull count, ull len, std::uint32_t* aside, unsigned* counters) {
  for (ull i = ull(blockIdx.x) * blockDim.x + threadIdx.x; i < count * len;
       i += ull(gridDim.x) * blockDim.x)
    if ((encode_bits(keys[i], kind) ^ flip) == ~U(0)) {
      const ull seg = i / len;
      aside[seg * len + atomicAdd(&counters[seg], 1u)] = values[i];
    }
}

__global__ void put_back_kernel(std::uint32_t* values, const std::uint32_t* aside,
                                const unsigned* counters, ull count, ull len) {
  for (ull i = ull(blockIdx.x) * blockDim.x + threadIdx.x; i < count * len;
       i += ull(gridDim.x) * blockDim.x) {
    const ull seg = i / len, off = i % len, c = counters[seg];
    if (off >= len - c) values[i] = aside[seg * len + off - (len - c)];
  }
}

// Blocks of kJobThreads for a grid-stride loop over n items.
inline int grid_stride_blocks(ull n) {
  return int(std::min<ull>((n + kJobThreads - 1) / kJobThreads, ull(cuda::reduce_sms()) * 16));
}

// Sorts job's segments with keys U (ordered codes) and payloads when V is std::uint32_t.
// on_chip(in, out, flip, bits) sorts every segment of at most chip_keys padded keys in one
// launch; one_array(in, out, vin, vout, n, stored) sorts one array of n keys into out,
// writing its first `stored` positions (stored = the padded length for the bitonic
// network's padded copy).
template <bool Bitonic, class U, class V, class OnChip, class OneArray>
void run_sort_job(const Job& job, ull chip_keys, const OnChip& on_chip, const OneArray& one_array) {
  constexpr bool with_values = std::is_same_v<V, std::uint32_t>;
  const U* in = static_cast<const U*>(job.keys_in);
  U* out = static_cast<U*>(job.keys_out);
  const ull len = job.length, count = job.count;
  const int bits = ceil_log2(std::size_t(len));
  const ull padded = ull(1) << bits;
  const U flip = job.descending ? ~U(0) : U(0);
  // The bitonic network moves padding: payloads of keys equal to the padding code are
  // set aside first (see set_aside_kernel).
  const bool repair = Bitonic && with_values && padded > len;
  Buffer<std::uint32_t> aside;
  Buffer<unsigned> counters;
  if (repair) {
    aside = Buffer<std::uint32_t>(Device::cuda, count * len);
    counters = Buffer<unsigned>(Device::cuda, count);
    cuda::check(cudaMemsetAsync(counters.data(), 0, count * sizeof(unsigned)), "sort counters");
    set_aside_kernel<U><<<grid_stride_blocks(count * len), kJobThreads>>>(
        in, job.values_in, job.kind, flip, count, len, aside.data(), counters.data());
    cuda::check_launch("sort set-aside");
  }
  if (padded <= chip_keys) {
    on_chip(in, out, flip, bits);
  } else {
    for (ull a = 0; a < count; ++a) {
      const U* sin = in + a * len;
      U* sout = out + a * len;
      const std::uint32_t* vin = job.values_in ? job.values_in + a * len : nullptr;
      std::uint32_t* vout = job.values_out ? job.values_out + a * len : nullptr;
      if (Bitonic && padded > len) {
        // The bitonic network needs every position of the padded length: sort a copy.
        Buffer<U> kpad(Device::cuda, padded);
        Buffer<std::uint32_t> vpad(Device::cuda, with_values ? padded : 0);
        one_array(sin, kpad.data(), vin, vpad.data(), len, padded);
        cuda::check(cudaMemcpyAsync(sout, kpad.data(), len * sizeof(U), cudaMemcpyDeviceToDevice),
                    "sort copy back");
        if constexpr (with_values)
          cuda::check(cudaMemcpyAsync(vout, vpad.data(), len * sizeof(std::uint32_t),
                                      cudaMemcpyDeviceToDevice),
                      "sort copy back");
        synchronize(Device::cuda);  // before the padded copy is freed
      } else {
        one_array(sin, sout, vin, vout, len, len);
      }
    }
  }
  if (repair) {
    put_back_kernel<<<grid_stride_blocks(count * len), kJobThreads>>>(job.values_out, aside.data(),
                                                                      counters.data(), count, len);
    cuda::check_launch("sort put-back");
    synchronize(Device::cuda);  // before the set-aside buffers are freed
  }
}

// The job's network, key width and payload as template arguments of a callable's
// operator()<Bitonic, U, V>(job): V is std::uint32_t with payloads, NoPayload without.
template <class NoPayload, class SortJob>
void dispatch_sort_job(const Job& job, const SortJob& sort_job) {
  auto with = [&]<class U, class V>() {
    if (job.network == Network::bitonic)
      sort_job.template operator()<true, U, V>(job);
    else
      sort_job.template operator()<false, U, V>(job);
  };
  auto keys = [&]<class U>() {
    if (job.values_in)
      with.template operator()<U, std::uint32_t>();
    else
      with.template operator()<U, NoPayload>();
  };
  if (job.kind == KeyKind::f64)
    keys.template operator()<std::uint64_t>();
  else
    keys.template operator()<std::uint32_t>();
}

}  // namespace

}  // namespace gridsolve::sort::detail
