// What the CPU and CUDA sorting back ends receive: untyped key bits described by a KeyKind,
// optional 4-byte payloads, and the arrays to sort as equal-length segments.
#pragma once
#include <cstddef>
#include <cstdint>

#include "gridsolve/sort/ordered_key.hpp"
#include "gridsolve/sort/sort.hpp"

namespace gridsolve::sort::detail {

struct Job {
  KeyKind kind = KeyKind::f32;  // f64 means 8-byte keys, everything else 4-byte keys
  bool descending = false;
  Network network = Network::butterfly;
  const void* keys_in = nullptr;
  void* keys_out = nullptr;
  const std::uint32_t* values_in = nullptr;  // null: keys only
  std::uint32_t* values_out = nullptr;
  std::size_t count = 1;   // segments
  std::size_t length = 0;  // keys per segment
};

// The minimum and maximum as ordered codes (ordered_key.hpp), ascending order.
struct MinMaxCodes {
  std::uint64_t min = 0, max = 0;
};

void sort_cpu(const Job& job);
MinMaxCodes min_max_cpu(const void* keys, KeyKind kind, std::size_t n, MinMaxMethod method);

#if GRIDSOLVE_HAVE_CUDA
void sort_cuda(const Job& job);
// The register kernels for short arrays and batches (sort_cuda_short.cu); sort_cuda
// picks between them and the pass-planned kernels by length.
void sort_cuda_short(const Job& job);
MinMaxCodes min_max_cuda(const void* keys, KeyKind kind, std::size_t n, MinMaxMethod method);
// Runs only some kernels of the butterfly sort of n float keys, in place (bit 1: the tile
// sort, 2: the gathered passes, 4: the contiguous passes) and returns how many it
// launched: the network's work does not depend on the keys, so each kind can be timed
// alone.
int butterfly_phases_cuda(float* keys, std::size_t n, unsigned phases);
#endif

// The smallest power of two >= n (n >= 1) and its exponent.
inline int ceil_log2(std::size_t n) {
  int b = 0;
  while ((std::size_t(1) << b) < n) ++b;
  return b;
}

}  // namespace gridsolve::sort::detail
