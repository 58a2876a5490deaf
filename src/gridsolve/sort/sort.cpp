// The typed sorting interface: checks the request and hands untyped bits to a back end.
#include "gridsolve/sort/sort.hpp"

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"
#include "gridsolve/sort/sort_backend.hpp"

namespace gridsolve::sort {

Network parse_network(const std::string& name) {
  if (name == "butterfly") return Network::butterfly;
  if (name == "bitonic") return Network::bitonic;
  throw Error(fmt::format("the sorting network must be butterfly or bitonic, got '{}'", name));
}

Order parse_order(const std::string& name) {
  if (name == "ascending" || name == "asc") return Order::ascending;
  if (name == "descending" || name == "desc") return Order::descending;
  throw Error(fmt::format("the sort order must be ascending or descending, got '{}'", name));
}

std::string to_string(Network n) {
  return n == Network::butterfly ? "butterfly" : "bitonic";
}
std::string to_string(Order o) {
  return o == Order::ascending ? "ascending" : "descending";
}

namespace {

void run(Device device, const detail::Job& job) {
  const std::size_t total = job.count * job.length;
  if (total == 0) return;
  require(job.keys_in && job.keys_out, "sort: the key arrays must not be null");
  require(bool(job.values_in) == bool(job.values_out),
          "sort: give both the input and the output values, or neither");
#if GRIDSOLVE_HAVE_CUDA
  if (device == Device::cuda) return detail::sort_cuda(job);
#endif
  require(device == Device::cpu, "sort: this build has no CUDA path");
  detail::sort_cpu(job);
}

template <class K>
detail::Job make_job(const K* in, K* out, std::size_t count, std::size_t length, Options o) {
  static_assert(sizeof(K) == 4 || sizeof(K) == 8);
  require(length <= max_length &&
              (count == 0 || count <= max_length / std::max<std::size_t>(length, 1)),
          fmt::format("sort: {} x {} keys is more than the {} one call sorts", count, length,
                      max_length));
  detail::Job j;
  j.kind = key_kind<K>();
  j.descending = o.order == Order::descending;
  j.network = o.network;
  j.keys_in = in;
  j.keys_out = out;
  j.count = count;
  j.length = length;
  return j;
}

template <class V>
void check_value_type() {
  static_assert(sizeof(V) == 4, "sort: payloads are 4-byte values (an index, int32, float)");
}

}  // namespace

template <class K>
void sort_keys(Device device, const K* in, K* out, std::size_t n, Options options) {
  run(device, make_job(in, out, 1, n, options));
}

template <class K, class V>
void sort_pairs(Device device, const K* keys_in, K* keys_out, const V* values_in, V* values_out,
                std::size_t n, Options options) {
  check_value_type<V>();
  detail::Job j = make_job(keys_in, keys_out, 1, n, options);
  j.values_in = reinterpret_cast<const std::uint32_t*>(values_in);
  j.values_out = reinterpret_cast<std::uint32_t*>(values_out);
  run(device, j);
}

template <class K>
void sort_batched_keys(Device device, const K* in, K* out, std::size_t count, std::size_t length,
                       Options options) {
  run(device, make_job(in, out, count, length, options));
}

template <class K, class V>
void sort_batched_pairs(Device device, const K* keys_in, K* keys_out, const V* values_in,
                        V* values_out, std::size_t count, std::size_t length, Options options) {
  check_value_type<V>();
  detail::Job j = make_job(keys_in, keys_out, count, length, options);
  j.values_in = reinterpret_cast<const std::uint32_t*>(values_in);
  j.values_out = reinterpret_cast<std::uint32_t*>(values_out);
  run(device, j);
}

template <class K>
MinMax<K> min_max(Device device, const K* keys, std::size_t n, MinMaxMethod method) {
  require(n >= 1, "min_max: the array is empty");
  require(keys != nullptr, "min_max: the key array must not be null");
  require(n <= max_length, fmt::format("min_max: {} keys is more than {}", n, max_length));
  detail::MinMaxCodes c;
#if GRIDSOLVE_HAVE_CUDA
  if (device == Device::cuda)
    c = detail::min_max_cuda(keys, key_kind<K>(), n, method);
  else
#endif
  {
    require(device == Device::cpu, "min_max: this build has no CUDA path");
    c = detail::min_max_cpu(keys, key_kind<K>(), n, method);
  }
  using U = ordered_bits_t<K>;
  return {decode_key<K>(U(c.min)), decode_key<K>(U(c.max))};
}

#define GRIDSOLVE_SORT_KEYS(K)                                                                 \
  template void sort_keys<K>(Device, const K*, K*, std::size_t, Options);                      \
  template void sort_batched_keys<K>(Device, const K*, K*, std::size_t, std::size_t, Options); \
  template MinMax<K> min_max<K>(Device, const K*, std::size_t, MinMaxMethod);
#define GRIDSOLVE_SORT_PAIRS(K, V)                                                          \
  template void sort_pairs<K, V>(Device, const K*, K*, const V*, V*, std::size_t, Options); \
  template void sort_batched_pairs<K, V>(Device, const K*, K*, const V*, V*, std::size_t,   \
                                         std::size_t, Options);
#define GRIDSOLVE_SORT_ALL(K)            \
  GRIDSOLVE_SORT_KEYS(K)                 \
  GRIDSOLVE_SORT_PAIRS(K, std::uint32_t) \
  GRIDSOLVE_SORT_PAIRS(K, std::int32_t)  \
  GRIDSOLVE_SORT_PAIRS(K, float)

GRIDSOLVE_SORT_ALL(float)
GRIDSOLVE_SORT_ALL(double)
GRIDSOLVE_SORT_ALL(std::int32_t)
GRIDSOLVE_SORT_ALL(std::uint32_t)

}  // namespace gridsolve::sort
