// Sorting networks on the CPU and the GPU: the butterfly sort, bitonic sort, batched small
// sorts and the min-max butterfly, for float, double, int32 and uint32 keys.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "gridsolve/exec/device.hpp"

namespace gridsolve::sort {

// butterfly: log2 N outer stages, each a "flip" compare-exchange (element i against its
//   mirror in the block of 2^s) followed by half-cleaners; every comparator puts the
//   smaller key at the lower index. Any length, in place, without padding memory.
// bitonic: the classic network (blocks sorted alternately up and down, then merged). It
//   needs a power-of-two length: other lengths are sorted in a padded copy.
enum class Network { butterfly, bitonic };
enum class Order { ascending, descending };

struct Options {
  Network network = Network::butterfly;
  Order order = Order::ascending;
};

Network parse_network(const std::string& name);  // "butterfly" | "bitonic"
Order parse_order(const std::string& name);      // "ascending" | "descending"
std::string to_string(Network n);
std::string to_string(Order o);

// The order (docs/sort.md): ascending is a total order, -inf < ... < -0 < +0 < ... <
// +inf < NaN; descending is its exact reverse. Sorting is not stable: equal keys may
// come out in any order (their payloads with them).

// The largest length one call sorts (2^31 keys).
constexpr std::size_t max_length = std::size_t(1) << 31;

// Sorts n keys. Pointers live on `device`; in == out sorts in place.
// K: float, double, std::int32_t, std::uint32_t.
template <class K>
void sort_keys(Device device, const K* in, K* out, std::size_t n, Options options = {});

// Sorts n (key, value) pairs by key; each value moves with its key. V: any 4-byte type
// (std::uint32_t, std::int32_t, float), e.g. the index of the key before sorting.
template <class K, class V>
void sort_pairs(Device device, const K* keys_in, K* keys_out, const V* values_in, V* values_out,
                std::size_t n, Options options = {});

// Sorts `count` arrays of `length` keys each, stored one after another (array a holds
// [a * length, (a + 1) * length)). Up to 16384 keys an array (8192 with payloads or
// double keys) is sorted on chip, many arrays per launch.
template <class K>
void sort_batched_keys(Device device, const K* in, K* out, std::size_t count, std::size_t length,
                       Options options = {});
template <class K, class V>
void sort_batched_pairs(Device device, const K* keys_in, K* keys_out, const V* values_in,
                        V* values_out, std::size_t count, std::size_t length, Options options = {});

// Minimum and maximum together. butterfly: the min-max butterfly (the first stage
// compare-exchanges element pairs into a min half and a max half, the following stages
// reduce each half; about 3n/2 comparisons); reduction: a plain reduction comparing every
// key with both (2n comparisons). Same total order as the sort: any NaN is the maximum.
enum class MinMaxMethod { butterfly, reduction };
template <class K>
struct MinMax {
  K min, max;
};
template <class K>
MinMax<K> min_max(Device device, const K* keys, std::size_t n,
                  MinMaxMethod method = MinMaxMethod::butterfly);

}  // namespace gridsolve::sort
