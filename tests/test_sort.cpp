// Sorting networks on the CPU against std::sort: every key type, both networks and
// orders, patterns with duplicates, +-0, infinities and NaN, lengths that are not powers
// of two, pairs, batches, the min-max butterfly, and the `gridsolve sort` command.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include "cli_runner.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/sort/sort.hpp"
#include "test_sort_data.hpp"

namespace gridsolve {
namespace {

using sort::Network;
using sort::Order;
using testing::Pattern;

const std::size_t cpu_lengths[] = {1, 2, 3, 5, 16, 17, 100, 255, 1000, 4096, 4097, 12345};

template <class K>
void check_keys(Network net, Order order) {
  const bool desc = order == Order::descending;
  for (Pattern p : testing::all_patterns)
    for (std::size_t n : cpu_lengths) {
      const std::vector<K> in = testing::make_keys<K>(p, n, 7 * n + int(p));
      std::vector<K> out(n);
      sort::sort_keys(Device::cpu, in.data(), out.data(), n, {net, order});
      const std::vector<K> expect = testing::reference_sort(in, desc);
      ASSERT_TRUE(testing::same_bits(out, expect))
          << sort::to_string(net) << " " << sort::to_string(order) << " " << testing::name(p)
          << " n=" << n << " first difference at " << testing::first_difference(out, expect);
    }
}

TEST(SortCpu, KeysMatchStdSortForEveryTypeNetworkAndOrder) {
  for (Network net : {Network::butterfly, Network::bitonic})
    for (Order order : {Order::ascending, Order::descending}) {
      check_keys<float>(net, order);
      check_keys<double>(net, order);
      check_keys<std::int32_t>(net, order);
      check_keys<std::uint32_t>(net, order);
    }
}

TEST(SortCpu, NanSortsLastAscendingAndFirstDescending) {
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  std::vector<float> k = {nan, 1.0f, -inf, 0.0f, -nan, -0.0f, inf, -2.0f};
  for (Network net : {Network::butterfly, Network::bitonic}) {
    std::vector<float> a = k;
    sort::sort_keys(Device::cpu, a.data(), a.data(), a.size(), {net, Order::ascending});
    EXPECT_EQ(a[0], -inf);
    EXPECT_EQ(a[1], -2.0f);
    EXPECT_TRUE(a[2] == 0 && std::signbit(a[2])) << "-0 sorts before +0";
    EXPECT_TRUE(a[3] == 0 && !std::signbit(a[3]));
    EXPECT_EQ(a[4], 1.0f);
    EXPECT_EQ(a[5], inf);
    EXPECT_TRUE(std::isnan(a[6]) && !std::signbit(a[6])) << "positive NaN before negative NaN";
    EXPECT_TRUE(std::isnan(a[7]) && std::signbit(a[7]));
    std::vector<float> d = k;
    sort::sort_keys(Device::cpu, d.data(), d.data(), d.size(), {net, Order::descending});
    EXPECT_TRUE(std::isnan(d[0]) && std::isnan(d[1]));
    EXPECT_EQ(d[2], inf);
    EXPECT_EQ(d[7], -inf);
  }
}

template <class K>
void check_pairs(Network net, Order order, std::size_t n, Pattern p) {
  const std::vector<K> keys = testing::make_keys<K>(p, n, 99 + n);
  std::vector<std::uint32_t> vals(n);
  std::iota(vals.begin(), vals.end(), 0u);
  std::vector<K> ko(n);
  std::vector<std::uint32_t> vo(n);
  sort::sort_pairs(Device::cpu, keys.data(), ko.data(), vals.data(), vo.data(), n, {net, order});
  ASSERT_TRUE(testing::same_bits(ko, testing::reference_sort(keys, order == Order::descending)))
      << testing::name(p) << " n=" << n;
  ASSERT_TRUE(testing::same_pairs(keys, vals, ko, vo)) << testing::name(p) << " n=" << n;
}

TEST(SortCpu, PairsArePermutationsOfTheInputPairs) {
  for (Network net : {Network::butterfly, Network::bitonic})
    for (Order order : {Order::ascending, Order::descending})
      for (Pattern p : testing::all_patterns)
        for (std::size_t n : {1, 7, 64, 1000, 5000}) {
          check_pairs<float>(net, order, n, p);
          check_pairs<std::uint32_t>(net, order, n, p);
          check_pairs<double>(net, order, n, p);
        }
}

TEST(SortCpu, BitonicPairsKeepPayloadsOfKeysEqualToThePadding) {
  // uint32 max is the padding key of an ascending sort; int32 min that of a descending one.
  for (std::size_t n : {3, 100, 5000}) {
    std::vector<std::uint32_t> k(n, 0xFFFFFFFFu), v(n);
    for (std::size_t i = 0; i < n; i += 3) k[i] = std::uint32_t(i);
    std::iota(v.begin(), v.end(), 1000u);
    std::vector<std::uint32_t> ko(n), vo(n);
    sort::sort_pairs(Device::cpu, k.data(), ko.data(), v.data(), vo.data(), n,
                     {Network::bitonic, Order::ascending});
    EXPECT_TRUE(testing::same_pairs(k, v, ko, vo)) << n;
    std::vector<std::int32_t> ki(n, std::numeric_limits<std::int32_t>::min()), kio(n);
    for (std::size_t i = 0; i < n; i += 2) ki[i] = std::int32_t(i);
    sort::sort_pairs(Device::cpu, ki.data(), kio.data(), v.data(), vo.data(), n,
                     {Network::bitonic, Order::descending});
    EXPECT_TRUE(testing::same_pairs(ki, v, kio, vo)) << n;
  }
}

TEST(SortCpu, LargerArraysUseThreadsAndBlocks) {
  for (Network net : {Network::butterfly, Network::bitonic}) {
    check_pairs<float>(net, Order::ascending, 100003, Pattern::specials);
    check_pairs<std::int32_t>(net, Order::descending, std::size_t(1) << 17, Pattern::random);
  }
}

TEST(SortCpu, InPlaceEqualsOutOfPlace) {
  const std::vector<float> in = testing::make_keys<float>(Pattern::specials, 3001, 5);
  std::vector<float> a = in, b(in.size());
  sort::sort_keys(Device::cpu, a.data(), a.data(), a.size());
  sort::sort_keys(Device::cpu, in.data(), b.data(), in.size());
  EXPECT_TRUE(testing::same_bits(a, b));
}

TEST(SortCpu, BatchedSortsEachArray) {
  for (Network net : {Network::butterfly, Network::bitonic})
    for (std::size_t len : {1, 64, 100, 1024, 4096, 5000})
      for (Order order : {Order::ascending, Order::descending}) {
        const std::size_t count = len >= 4096 ? 3 : 37;
        const std::vector<float> in =
            testing::make_keys<float>(Pattern::specials, count * len, len + 3);
        std::vector<std::uint32_t> v(in.size());
        std::iota(v.begin(), v.end(), 0u);
        std::vector<float> out(in.size());
        std::vector<std::uint32_t> vo(in.size());
        sort::sort_batched_pairs(Device::cpu, in.data(), out.data(), v.data(), vo.data(), count,
                                 len, {net, order});
        for (std::size_t a = 0; a < count; ++a) {
          const std::vector<float> seg(in.begin() + a * len, in.begin() + (a + 1) * len);
          const std::vector<float> got(out.begin() + a * len, out.begin() + (a + 1) * len);
          ASSERT_TRUE(
              testing::same_bits(got, testing::reference_sort(seg, order == Order::descending)))
              << sort::to_string(net) << " len=" << len << " array " << a;
          const std::vector<std::uint32_t> sv(v.begin() + a * len, v.begin() + (a + 1) * len),
              gv(vo.begin() + a * len, vo.begin() + (a + 1) * len);
          ASSERT_TRUE(testing::same_pairs(seg, sv, got, gv)) << "len=" << len << " array " << a;
        }
      }
}

template <class K>
void check_min_max(std::size_t n, Pattern p) {
  const std::vector<K> in = testing::make_keys<K>(p, n, n + 11);
  const std::vector<K> s = testing::reference_sort(in, false);
  for (auto m : {sort::MinMaxMethod::butterfly, sort::MinMaxMethod::reduction}) {
    const sort::MinMax<K> r = sort::min_max(Device::cpu, in.data(), n, m);
    EXPECT_TRUE(
        testing::same_bits(std::vector<K>{r.min, r.max}, std::vector<K>{s.front(), s.back()}))
        << testing::name(p) << " n=" << n;
  }
}

TEST(SortCpu, MinMaxButterflyAndReductionAgreeWithTheSortedEnds) {
  for (Pattern p : testing::all_patterns)
    for (std::size_t n : {1, 2, 3, 1000, 100001}) {
      check_min_max<float>(n, p);
      check_min_max<double>(n, p);
      check_min_max<std::int32_t>(n, p);
      check_min_max<std::uint32_t>(n, p);
    }
}

TEST(SortCpu, RejectsBadRequests) {
  EXPECT_THROW(sort::parse_network("quick"), Error);
  EXPECT_THROW(sort::parse_order("up"), Error);
  float x = 1;
  EXPECT_THROW(sort::min_max(Device::cpu, &x, 0), Error);
  EXPECT_THROW(sort::sort_keys<float>(Device::cpu, nullptr, &x, 1), Error);
  std::uint32_t v = 0;
  EXPECT_THROW((sort::sort_pairs<float, std::uint32_t>(Device::cpu, &x, &x, &v, nullptr, 1)),
               Error);
}

// The command line: files of keys in, sorted files out, exit 2 for bad files.
using Outcome = cli_testing::CliOutcome;
Outcome gridsolve(const std::string& args) {
  return cli_testing::run_cli(args);
}

std::filesystem::path scratch_dir() {
  auto d = std::filesystem::temp_directory_path() / "gridsolve_sort_test";
  std::filesystem::create_directories(d);
  return d;
}

std::string read_all(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(SortCli, SortsATextFile) {
  const auto d = scratch_dir();
  std::ofstream(d / "keys.txt") << "# keys\n3.5 -1 nan\n-0 0 inf -inf 2e-3\n";
  const Outcome o = gridsolve("sort " + (d / "keys.txt").string() + " -o " +
                              (d / "sorted.txt").string() + " --device cpu");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_EQ(read_all(d / "sorted.txt"), "-inf\n-1\n-0\n0\n0.002\n3.5\ninf\nnan\n");
  const Outcome desc = gridsolve("sort " + (d / "keys.txt").string() +
                                 " --order descending --network bitonic --device cpu -q");
  ASSERT_EQ(desc.code, 0) << desc.output;
  EXPECT_EQ(desc.output, "nan\ninf\n3.5\n0.002\n0\n-0\n-1\n-inf\n");
}

TEST(SortCli, SortsABinaryFile) {
  const auto d = scratch_dir();
  std::vector<std::int32_t> k = {5, -7, 2147483647, -2147483647 - 1, 0, 5};
  std::ofstream(d / "keys.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(k.data()), std::streamsize(k.size() * 4));
  const Outcome o =
      gridsolve("sort " + (d / "keys.bin").string() + " -o " + (d / "sorted.bin").string() +
                " --format binary --type int32 --device cpu");
  ASSERT_EQ(o.code, 0) << o.output;
  const std::string bytes = read_all(d / "sorted.bin");
  ASSERT_EQ(bytes.size(), k.size() * 4);
  std::vector<std::int32_t> got(k.size());
  std::memcpy(got.data(), bytes.data(), bytes.size());
  std::sort(k.begin(), k.end());
  EXPECT_EQ(got, k);
}

TEST(SortCli, BadFilesExitWithTwoAndSayWhy) {
  const auto d = scratch_dir();
  std::ofstream(d / "bad.txt") << "1 2 three 4\n";
  Outcome o = gridsolve("sort " + (d / "bad.txt").string() + " --device cpu");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("three"), std::string::npos) << o.output;
  std::ofstream(d / "range.txt") << "1 4294967296\n";
  o = gridsolve("sort " + (d / "range.txt").string() + " --type uint32 --device cpu");
  EXPECT_EQ(o.code, 2) << o.output;
  std::ofstream(d / "odd.bin", std::ios::binary) << "12345";
  o = gridsolve("sort " + (d / "odd.bin").string() + " --format binary --device cpu");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("multiple of 4"), std::string::npos) << o.output;
  o = gridsolve("sort " + (d / "missing.txt").string() + " --device cpu");
  EXPECT_EQ(o.code, 2) << o.output;
  std::ofstream(d / "empty.txt") << "# nothing\n";
  o = gridsolve("sort " + (d / "empty.txt").string() + " --device cpu");
  EXPECT_EQ(o.code, 2) << o.output;
  o = gridsolve("sort " + (d / "bad.txt").string() + " --type int64 --device cpu");
  EXPECT_EQ(o.code, 2) << o.output;
  o = gridsolve("sort " + d.string() + " --device cpu");  // a folder
  EXPECT_EQ(o.code, 2) << o.output;
}

TEST(SortCli, FloatKeysThatWouldComeBackAsOtherNumbersAreRefused) {
  const auto d = scratch_dir();
  std::ofstream(d / "digits.txt") << "1.5\n-999.9952785957291 0.25\n";
  Outcome o = gridsolve("sort " + (d / "digits.txt").string() + " --device cpu");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("line 2: '-999.9952785957291' does not fit a float key: it would come "
                          "back as -999.9953; use --type double"),
            std::string::npos)
      << o.output;
  o = gridsolve("sort " + (d / "digits.txt").string() + " --type double --device cpu -q");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_EQ(o.output, "-999.9952785957291\n0.25\n1.5\n");
  std::ofstream(d / "integer.txt") << "16777217\n";  // 2^24 + 1: float holds 2^24
  o = gridsolve("sort " + (d / "integer.txt").string() + " --device cpu");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("come back as 16777216"), std::string::npos) << o.output;
  // Keys float holds to the digits written pass, whatever their form: 0.1f to nine and
  // to seventeen digits, float's smallest normal to nine, a denormal, integers to 2^24.
  std::ofstream(d / "floats.txt")
      << "0.1 0.100000001 0.10000000149011612 1.17549435e-38 1e-40 16777216 -0.000 2.50\n";
  o = gridsolve("sort " + (d / "floats.txt").string() + " --device cpu -q");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_EQ(o.output, "-0\n1e-40\n1.1754944e-38\n0.1\n0.1\n0.1\n2.5\n16777216\n");
}

TEST(SortCli, NanPayloadsSurviveBinaryButNotText) {
  const auto d = scratch_dir();
  std::ofstream(d / "nan.txt") << "nan(0x123) 1\n";
  Outcome o = gridsolve("sort " + (d / "nan.txt").string() + " --device cpu -q");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_EQ(o.output, "1\nnan\n");
  const std::uint32_t bits[2] = {0x7fc00123u, 0x3f800000u};  // NaN with a payload, 1.0f
  std::ofstream(d / "nan.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(bits), sizeof bits);
  o = gridsolve("sort " + (d / "nan.bin").string() + " -o " + (d / "nan_sorted.bin").string() +
                " --format binary --device cpu -q");
  ASSERT_EQ(o.code, 0) << o.output;
  const std::string out = read_all(d / "nan_sorted.bin");
  ASSERT_EQ(out.size(), sizeof bits);
  std::uint32_t got[2];
  std::memcpy(got, out.data(), sizeof got);
  EXPECT_EQ(got[0], 0x3f800000u);
  EXPECT_EQ(got[1], 0x7fc00123u);
}

// Key files are regular files no larger than the most keys a sort takes, checked before
// a byte is read: a FIFO without a writer would wait forever, /dev/zero never ends.
TEST(SortCli, OnlyRegularFilesOfAPlausibleSizeAreRead) {
  const auto d = scratch_dir();
  const auto fifo = d / "pipe";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Outcome o = gridsolve("sort " + fifo.string() + " --device cpu");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("cannot read key file '" + fifo.string() + "': it is a FIFO"),
            std::string::npos)
      << o.output;
  std::filesystem::remove(fifo);
  o = gridsolve("sort /dev/zero --format binary --device cpu");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("'/dev/zero': it is a character device"), std::string::npos) << o.output;
  // More bytes than 2^31 keys: refused by its size, before reading (sparse files).
  struct Case {
    const char* name;
    std::uintmax_t bytes;
    const char* options;
    const char* expect;
  } cases[] = {
      {"big.bin", (std::uintmax_t(8) << 30) + 4, "--format binary",
       "more than the 8589934592 bytes such a file can have: 2^31 keys of 4 bytes"},
      {"big.bin", (std::uintmax_t(16) << 30) + 8, "--format binary --type double",
       "more than the 17179869184 bytes such a file can have: 2^31 keys of 8 bytes"},
      {"big.txt", (std::uintmax_t(64) << 30) + 1, "",
       "more than the 68719476736 bytes such a file can have: 2^31 keys, the most gridsolve "
       "sort takes, at 32 bytes a key"},
  };
  for (const Case& c : cases) {
    const auto file = d / c.name;
    std::ofstream(file) << "1\n";
    std::error_code ec;
    std::filesystem::resize_file(file, c.bytes, ec);
    if (ec) continue;  // a file system without sparse files of this size
    o = gridsolve("sort " + file.string() + " " + c.options + " --device cpu");
    std::filesystem::remove(file);
    EXPECT_EQ(o.code, 2) << o.output;
    EXPECT_NE(o.output.find(c.expect), std::string::npos) << o.output;
  }
}

TEST(SortCli, BenchOnTheCpuChecksItsResults) {
  const auto d = scratch_dir() / "bench";
  const Outcome o = gridsolve("bench sort --device cpu --n 12 --repeats 1 --out " + d.string());
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("butterfly"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("std::sort"), std::string::npos) << o.output;
  EXPECT_TRUE(std::filesystem::exists(d / "bench.json"));
  EXPECT_EQ(gridsolve("bench sort --device cpu --n 40").code, 2);
}

}  // namespace
}  // namespace gridsolve
