// The sorting networks on the CPU: the same comparators as the GPU path, stage by stage,
// each stage's compare-exchanges spread over OpenMP threads; the min-max butterfly.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "gridsolve/sort/sort_backend.hpp"

namespace gridsolve::sort::detail {

namespace {

// One compare-exchange: i < j; i gets the key that sorts first when `up`. Strict: equal
// keys (and a real key equal to the padding) never move.
template <class U>
inline void compare_exchange(U* k, std::uint32_t* v, std::size_t i, std::size_t j, bool up) {
  const U a = k[i], b = k[j];
  const bool swap = up ? b < a : a < b;
  k[i] = swap ? b : a;
  k[j] = swap ? a : b;
  if (v && swap) std::swap(v[i], v[j]);
}

// The comparators of stride 2^b in outer stage s, for the pairs q in [q0, q1).
template <class U>
void stage(U* k, std::uint32_t* v, std::size_t n, int s, int b, int bits, bool butterfly,
           std::size_t q0, std::size_t q1) {
  const std::size_t half = std::size_t(1) << b;
  const std::size_t flip = butterfly && b == s - 1 ? (std::size_t(2) << b) - 1 : 0;
  for (std::size_t q = q0; q < q1; ++q) {
    const std::size_t i = ((q >> b) << (b + 1)) | (q & (half - 1));
    const std::size_t j = flip ? i ^ flip : i | half;
    if (j >= n) continue;
    compare_exchange(k, v, i, j, butterfly || s == bits || !((i >> s) & 1));
  }
}

// One network over k[0, cap) (cap a power of two). Positions at or above n hold no data:
// the butterfly never moves them (every comparator puts the smaller key low and nothing
// is smaller than the "sorts last" code they stand for), so its comparators that reach
// them are skipped; the bitonic network moves them, so it needs n == cap (padded).
// Strides below a block of 4096 keys run block by block (cache-resident, one parallel
// loop over blocks), like the GPU's tiles; longer strides one stage at a time.
template <class U>
void network(U* k, std::uint32_t* v, std::size_t n, std::size_t cap, Network net, bool parallel) {
  const int bits = ceil_log2(cap);
  const bool butterfly = net == Network::butterfly;
  const int block_bits = std::min(bits, 12);
  const std::int64_t blocks = std::int64_t(cap >> block_bits);
  const std::size_t block_pairs = (std::size_t(1) << block_bits) / 2;
  const std::size_t pairs = cap / 2;
  const bool threads = parallel && cap >= (std::size_t(1) << 15);
#pragma omp parallel for schedule(static) if (threads)
  for (std::int64_t blk = 0; blk < blocks; ++blk)
    for (int s = 1; s <= block_bits; ++s)
      for (int b = s - 1; b >= 0; --b)
        stage(k, v, n, s, b, bits, butterfly, std::size_t(blk) * block_pairs,
              std::size_t(blk + 1) * block_pairs);
  for (int s = block_bits + 1; s <= bits; ++s) {
    for (int b = s - 1; b >= block_bits; --b) {
#pragma omp parallel for schedule(static) if (threads)
      for (std::int64_t c = 0; c < blocks; ++c)
        stage(k, v, n, s, b, bits, butterfly, pairs * std::size_t(c) / std::size_t(blocks),
              pairs * std::size_t(c + 1) / std::size_t(blocks));
    }
#pragma omp parallel for schedule(static) if (threads)
    for (std::int64_t blk = 0; blk < blocks; ++blk)
      for (int b = block_bits - 1; b >= 0; --b)
        stage(k, v, n, s, b, bits, butterfly, std::size_t(blk) * block_pairs,
              std::size_t(blk + 1) * block_pairs);
  }
}

template <class U>
void sort_segment(const Job& job, std::size_t a, bool parallel) {
  const std::size_t len = job.length;
  const int bits = ceil_log2(len);
  const std::size_t cap = std::size_t(1) << bits;
  const bool padded = job.network == Network::bitonic;
  const U flip = job.descending ? ~U(0) : U(0);
  const U last = ~U(0);  // the code that sorts last
  const U* in = static_cast<const U*>(job.keys_in) + a * len;
  U* out = static_cast<U*>(job.keys_out) + a * len;
  const std::uint32_t* vin = job.values_in ? job.values_in + a * len : nullptr;
  std::uint32_t* vout = job.values_out ? job.values_out + a * len : nullptr;

  std::vector<U> k(padded ? cap : len, last);
  std::vector<std::uint32_t> v(vin ? k.size() : 0);
  for (std::size_t i = 0; i < len; ++i) k[i] = encode_bits(in[i], job.kind) ^ flip;
  if (vin) std::copy(vin, vin + len, v.begin());
  // Padding keys equal the largest code; in the bitonic network a real key with that code
  // may swap places with a pad, so its payload is put back afterwards (any order of
  // equal keys is a valid result).
  std::vector<std::uint32_t> tied;
  if (vin && padded && cap > len)
    for (std::size_t i = 0; i < len; ++i)
      if (k[i] == last) tied.push_back(vin[i]);
  network(k.data(), vin ? v.data() : nullptr, padded ? cap : len, cap, job.network, parallel);
  for (std::size_t t = 0; t < tied.size(); ++t) v[len - tied.size() + t] = tied[t];
  for (std::size_t i = 0; i < len; ++i) out[i] = decode_bits(U(k[i] ^ flip), job.kind);
  if (vout) std::copy(v.begin(), v.begin() + len, vout);
}

template <class U>
void sort_typed(const Job& job) {
  if (job.count == 1) return sort_segment<U>(job, 0, true);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t a = 0; a < std::int64_t(job.count); ++a)
    sort_segment<U>(job, std::size_t(a), false);
}

template <class U>
MinMaxCodes min_max_typed(const U* keys, KeyKind kind, std::size_t n, MinMaxMethod method) {
  U lo = ~U(0), hi = 0;
  const auto code = [&](std::size_t i) { return encode_bits(keys[i], kind); };
  if (method == MinMaxMethod::butterfly) {
    // First stage: element i against i + n/2; the smaller joins the min half, the larger
    // the max half. Then each half is reduced on its own.
    const std::int64_t half = std::int64_t(n / 2);
#pragma omp parallel if (n >= 65536)
    {
      U l = ~U(0), h = 0;
#pragma omp for schedule(static) nowait
      for (std::int64_t i = 0; i < half; ++i) {
        const U a = code(std::size_t(i)), b = code(std::size_t(i + half));
        l = std::min(l, std::min(a, b)), h = std::max(h, std::max(a, b));
      }
#pragma omp critical(gridsolve_min_max)
      lo = std::min(lo, l), hi = std::max(hi, h);
    }
    if (n % 2) lo = std::min(lo, code(n - 1)), hi = std::max(hi, code(n - 1));
  } else {
#pragma omp parallel if (n >= 65536)
    {
      U l = ~U(0), h = 0;
#pragma omp for schedule(static) nowait
      for (std::int64_t i = 0; i < std::int64_t(n); ++i) {
        const U a = code(std::size_t(i));
        l = std::min(l, a), h = std::max(h, a);
      }
#pragma omp critical(gridsolve_min_max)
      lo = std::min(lo, l), hi = std::max(hi, h);
    }
  }
  return {lo, hi};
}

}  // namespace

void sort_cpu(const Job& job) {
  if (job.kind == KeyKind::f64)
    sort_typed<std::uint64_t>(job);
  else
    sort_typed<std::uint32_t>(job);
}

MinMaxCodes min_max_cpu(const void* keys, KeyKind kind, std::size_t n, MinMaxMethod method) {
  if (kind == KeyKind::f64)
    return min_max_typed(static_cast<const std::uint64_t*>(keys), kind, n, method);
  return min_max_typed(static_cast<const std::uint32_t*>(keys), kind, n, method);
}

}  // namespace gridsolve::sort::detail
