// GPU sorting networks against std::sort and the CPU path: every key type, both networks
// and orders, the awkward patterns, lengths from 1 to 2^25 (non-powers of two included),
// pairs, batches and the min-max butterfly. SortGpuSmall runs every kernel on small
// inputs (for compute-sanitizer).
#include <gtest/gtest.h>

#include <numeric>

#include "gpu_test_support.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/sort/sort.hpp"
#include "test_sort_data.hpp"

namespace gridsolve {
namespace {

using sort::Network;
using sort::Order;
using testing::Pattern;

template <class T>
Buffer<T> upload(const std::vector<T>& h) {
  Buffer<T> d(Device::cuda, h.size());
  copy_bytes(d.data(), Device::cuda, h.data(), Device::cpu, h.size() * sizeof(T));
  return d;
}
template <class T>
std::vector<T> download(const Buffer<T>& d, std::size_t n) {
  std::vector<T> h(n);
  copy_bytes(h.data(), Device::cpu, d.data(), Device::cuda, n * sizeof(T));
  return h;
}

template <class K>
std::vector<K> gpu_sort(const std::vector<K>& in, sort::Options o, bool in_place = false) {
  Buffer<K> a = upload(in), b(Device::cuda, in.size());
  K* out = in_place ? a.data() : b.data();
  sort::sort_keys(Device::cuda, a.data(), out, in.size(), o);
  return download(in_place ? a : b, in.size());
}

template <class K>
void check_keys(std::size_t n, Pattern p, sort::Options o, bool in_place = false) {
  const std::vector<K> in = testing::make_keys<K>(p, n, 31 * n + int(p));
  const std::vector<K> got = gpu_sort(in, o, in_place);
  const std::vector<K> expect = testing::reference_sort(in, o.order == Order::descending);
  ASSERT_TRUE(testing::same_bits(got, expect))
      << sort::to_string(o.network) << " " << sort::to_string(o.order) << " " << testing::name(p)
      << " n=" << n << " first difference at " << testing::first_difference(got, expect);
}

template <class K>
void check_pairs(std::size_t n, Pattern p, sort::Options o) {
  const std::vector<K> keys = testing::make_keys<K>(p, n, 17 * n + int(p));
  std::vector<std::uint32_t> vals(n);
  std::iota(vals.begin(), vals.end(), 0u);
  Buffer<K> dk = upload(keys), dko(Device::cuda, n);
  Buffer<std::uint32_t> dv = upload(vals), dvo(Device::cuda, n);
  sort::sort_pairs(Device::cuda, dk.data(), dko.data(), dv.data(), dvo.data(), n, o);
  const std::vector<K> ko = download(dko, n);
  const std::vector<std::uint32_t> vo = download(dvo, n);
  ASSERT_TRUE(testing::same_bits(ko, testing::reference_sort(keys, o.order == Order::descending)))
      << sort::to_string(o.network) << " " << testing::name(p) << " n=" << n;
  ASSERT_TRUE(testing::same_pairs(keys, vals, ko, vo))
      << sort::to_string(o.network) << " " << testing::name(p) << " n=" << n;
  // The CPU path gives the same keys (payloads of equal keys may be placed differently).
  std::vector<K> cko(n);
  std::vector<std::uint32_t> cvo(n);
  sort::sort_pairs(Device::cpu, keys.data(), cko.data(), vals.data(), cvo.data(), n, o);
  ASSERT_TRUE(testing::same_bits(ko, cko)) << "CPU and GPU disagree, n=" << n;
}

const std::size_t lengths[] = {1,    2,    3,    17,    64,        1000,    4095,         4096,
                               4097, 8191, 8192, 12289, 65536 + 7, 1 << 17, (1 << 18) - 1};

TEST(SortGpu, KeysMatchStdSortForEveryTypeNetworkAndOrder) {
  SKIP_WITHOUT_GPU();
  for (Network net : {Network::butterfly, Network::bitonic})
    for (Order order : {Order::ascending, Order::descending})
      for (Pattern p : testing::all_patterns)
        for (std::size_t n : lengths) {
          check_keys<float>(n, p, {net, order});
          check_keys<std::uint32_t>(n, p, {net, order});
          if (n % 3 == 0 || n < 100) {
            check_keys<double>(n, p, {net, order});
            check_keys<std::int32_t>(n, p, {net, order});
          }
        }
}

TEST(SortGpu, InPlace) {
  SKIP_WITHOUT_GPU();
  for (Network net : {Network::butterfly, Network::bitonic})
    for (std::size_t n : {1000, 4097, 100000}) check_keys<float>(n, Pattern::specials, {net}, true);
}

TEST(SortGpu, PairsArePermutationsAndAgreeWithTheCpu) {
  SKIP_WITHOUT_GPU();
  for (Network net : {Network::butterfly, Network::bitonic})
    for (Order order : {Order::ascending, Order::descending})
      for (Pattern p : testing::all_patterns)
        for (std::size_t n : {1, 5, 1000, 4096, 5000, 70001}) {
          check_pairs<float>(n, p, {net, order});
          check_pairs<std::uint32_t>(n, p, {net, order});
          if (p == Pattern::specials) check_pairs<double>(n, p, {net, order});
        }
}

TEST(SortGpu, BitonicPairsKeepPayloadsOfKeysEqualToThePadding) {
  SKIP_WITHOUT_GPU();
  for (std::size_t n : {3, 100, 5000, 70001}) {
    std::vector<std::uint32_t> k(n, 0xFFFFFFFFu), v(n);
    for (std::size_t i = 0; i < n; i += 3) k[i] = std::uint32_t(i);
    std::iota(v.begin(), v.end(), 7u);
    Buffer<std::uint32_t> dk = upload(k), dv = upload(v);
    sort::sort_pairs(Device::cuda, dk.data(), dk.data(), dv.data(), dv.data(), n,
                     {Network::bitonic, Order::ascending});
    EXPECT_TRUE(testing::same_pairs(k, v, download(dk, n), download(dv, n))) << n;
    Buffer<std::uint32_t> bk = upload(k), bv = upload(v);
    const std::size_t len = n < 100 ? n : 100;
    sort::sort_batched_pairs(Device::cuda, bk.data(), bk.data(), bv.data(), bv.data(), n / len, len,
                             {Network::bitonic, Order::ascending});
    const std::vector<std::uint32_t> gk = download(bk, n), gv = download(bv, n);
    for (std::size_t a = 0; a < n / len; ++a) {
      const auto seg = [&](const std::vector<std::uint32_t>& x) {
        return std::vector<std::uint32_t>(x.begin() + a * len, x.begin() + (a + 1) * len);
      };
      ASSERT_TRUE(testing::same_pairs(seg(k), seg(v), seg(gk), seg(gv))) << n << " array " << a;
    }
  }
}

template <class K>
void check_batched(std::size_t count, std::size_t len, sort::Options o, bool pairs) {
  const std::vector<K> in = testing::make_keys<K>(Pattern::specials, count * len, len * 3 + count);
  std::vector<std::uint32_t> v(in.size());
  std::iota(v.begin(), v.end(), 0u);
  Buffer<K> dk = upload(in), dko(Device::cuda, in.size());
  Buffer<std::uint32_t> dv = upload(v), dvo(Device::cuda, in.size());
  if (pairs)
    sort::sort_batched_pairs(Device::cuda, dk.data(), dko.data(), dv.data(), dvo.data(), count, len,
                             o);
  else
    sort::sort_batched_keys(Device::cuda, dk.data(), dko.data(), count, len, o);
  const std::vector<K> got = download(dko, in.size());
  const std::vector<std::uint32_t> gv = download(dvo, in.size());
  for (std::size_t a = 0; a < count; ++a) {
    const std::vector<K> seg(in.begin() + a * len, in.begin() + (a + 1) * len),
        out(got.begin() + a * len, got.begin() + (a + 1) * len);
    ASSERT_TRUE(testing::same_bits(out, testing::reference_sort(seg, o.order == Order::descending)))
        << sort::to_string(o.network) << " " << count << " x " << len << ", array " << a;
    if (pairs) {
      const std::vector<std::uint32_t> sv(v.begin() + a * len, v.begin() + (a + 1) * len),
          ov(gv.begin() + a * len, gv.begin() + (a + 1) * len);
      ASSERT_TRUE(testing::same_pairs(seg, sv, out, ov))
          << count << " x " << len << ", array " << a;
    }
  }
}

TEST(SortGpu, BatchedSortsEachArrayOnChip) {
  SKIP_WITHOUT_GPU();
  for (Network net : {Network::butterfly, Network::bitonic})
    for (Order order : {Order::ascending, Order::descending})
      for (std::size_t len :
           {1, 2, 63, 64, 100, 256, 1000, 1024, 2049, 4096, 5000, 8192, 8193, 16384, 16385}) {
        const std::size_t count = len > 2049 ? 20 : 333;
        check_batched<float>(count, len, {net, order}, false);
        check_batched<float>(count, len, {net, order}, true);
        check_batched<double>(count / 3 + 1, len, {net, order}, true);
        check_batched<std::int32_t>(count / 3 + 1, len, {net, order}, false);
      }
}

template <class K>
void check_min_max(std::size_t n, Pattern p) {
  const std::vector<K> in = testing::make_keys<K>(p, n, n + 5);
  Buffer<K> d = upload(in);
  for (auto m : {sort::MinMaxMethod::butterfly, sort::MinMaxMethod::reduction}) {
    const sort::MinMax<K> g = sort::min_max(Device::cuda, d.data(), n, m);
    const sort::MinMax<K> c = sort::min_max(Device::cpu, in.data(), n, m);
    ASSERT_TRUE(testing::same_bits(std::vector<K>{g.min, g.max}, std::vector<K>{c.min, c.max}))
        << testing::name(p) << " n=" << n;
  }
}

TEST(SortGpu, MinMaxAgreesWithTheCpu) {
  SKIP_WITHOUT_GPU();
  for (Pattern p : testing::all_patterns)
    for (std::size_t n : {1, 2, 3, 1000, 1000001}) {
      check_min_max<float>(n, p);
      check_min_max<double>(n, p);
      check_min_max<std::int32_t>(n, p);
      check_min_max<std::uint32_t>(n, p);
    }
}

TEST(SortGpu, LargeArraysUpTo2To25) {
  SKIP_WITHOUT_GPU();
  check_keys<float>(std::size_t(1) << 25, Pattern::random, {});
  check_keys<float>((std::size_t(1) << 25) - 3, Pattern::specials, {});
  check_keys<float>((std::size_t(1) << 22) + 5, Pattern::duplicates,
                    {Network::bitonic, Order::descending});
  check_keys<double>((std::size_t(1) << 21) + 1, Pattern::specials, {});
  check_pairs<float>((std::size_t(1) << 24) + 1, Pattern::random, {});
  check_pairs<std::uint32_t>((std::size_t(1) << 20) + 9, Pattern::specials, {Network::bitonic});
}

// Every kernel once on small inputs: tiles, global passes of 1 to 5 stages (2^18 padded),
// pairs, batches, padding repair and min-max. Run under compute-sanitizer.
TEST(SortGpuSmall, EveryKernel) {
  SKIP_WITHOUT_GPU();
  for (Network net : {Network::butterfly, Network::bitonic}) {
    check_keys<float>(200000, Pattern::specials, {net});
    check_keys<double>(40000, Pattern::random, {net, Order::descending});
    check_pairs<float>(40000, Pattern::duplicates, {net});
    check_pairs<double>(5000, Pattern::specials, {net});
    check_batched<float>(50, 1000, {net}, true);
    check_batched<double>(20, 64, {net}, true);
  }
  check_min_max<float>(40001, Pattern::specials);
  check_min_max<double>(40001, Pattern::specials);
}

}  // namespace
}  // namespace gridsolve
