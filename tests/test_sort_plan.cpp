// The GPU sorts' pass plans run on the CPU: every pass gathers disjoint tiles covering all
// positions, the butterfly's padding never moves, and the plans sort (small tiles, so that
// gathered, mirrored and straddling passes all occur at small sizes). Then the kernel's
// own per-thread arithmetic (sort_tile.hpp), thread by thread, with key-value pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "gridsolve/sort/sort_plan.hpp"
#include "gridsolve/sort/sort_tile.hpp"

namespace gridsolve {
namespace {

using sort::detail::plan_block_bit;
using sort::detail::plan_position;
using sort::detail::plan_sort;
using sort::detail::PlanPass;

// Runs the plan as the GPU kernel does: gather each tile, run its rounds, scatter.
// Returns false (with a failure recorded) where a pass is not a partition.
bool run_plan(std::vector<std::uint32_t>& data, int bits, int tile_bits, bool bitonic, int coalesce,
              std::size_t n) {
  const std::size_t padded = std::size_t(1) << bits, tile = std::size_t(1) << tile_bits;
  const std::size_t blocks = std::max<std::size_t>(1, padded >> tile_bits);
  for (const PlanPass& pass : plan_sort(bits, tile_bits, bitonic, coalesce)) {
    std::vector<int> seen(padded, 0);
    for (std::size_t b = 0; b < blocks; ++b) {
      std::vector<std::uint32_t> t(tile);
      std::vector<unsigned long long> at(tile);
      for (unsigned p = 0; p < tile; ++p) {
        at[p] = plan_position(tile_bits, pass.low_bits, pass.high_at, pass.mirror, b, p);
        if (at[p] < padded) {
          ++seen[at[p]];
          t[p] = data[at[p]];
        } else {
          EXPECT_TRUE(pass.contiguous && padded < tile) << "position past the array";
          t[p] = ~0u;
        }
      }
      for (int r = 0; r < pass.nrounds; ++r) {
        const auto& round = pass.rounds[r];
        for (int i = round.first; i < round.first + round.count; ++i) {
          const auto& st = pass.steps[i];
          EXPECT_TRUE(st.bit >= round.window && st.bit < round.window + 4);
          EXPECT_TRUE(!st.flip || round.window == 0 || (round.mirror && i == round.first));
          const unsigned span = st.flip ? (2u << st.bit) - 1 : 1u << st.bit;
          const unsigned global_dir =
              st.dir_global_bit >= 0
                  ? plan_block_bit(tile_bits, pass.low_bits, pass.high_at, b, st.dir_global_bit)
                  : 0;
          for (unsigned p = 0; p < tile; ++p) {
            if (p & (1u << st.bit)) continue;
            const unsigned q = p ^ span;
            const bool down =
                (global_dir ^ (st.dir_tile_bit >= 0 ? (p >> st.dir_tile_bit) & 1 : 0)) != 0;
            const bool swap = down ? t[p] < t[q] : t[q] < t[p];
            if (swap) std::swap(t[p], t[q]);
          }
        }
      }
      for (unsigned p = 0; p < tile; ++p)
        if (at[p] < padded) {
          // The butterfly's padding stays put: positions past n are never written.
          if (!bitonic && at[p] >= n && t[p] != ~0u) {
            ADD_FAILURE() << "a key moved into the padding at " << at[p];
            return false;
          }
          data[at[p]] = t[p];
        }
    }
    for (std::size_t g = 0; g < padded; ++g)
      if (seen[g] != 1) {
        ADD_FAILURE() << "position " << g << " gathered " << seen[g] << " times";
        return false;
      }
  }
  return true;
}

void check(int bits, int tile_bits, int coalesce, bool bitonic, std::size_t n, unsigned seed,
           int distinct) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> data(std::size_t(1) << bits, ~0u);
  for (std::size_t i = 0; i < n; ++i) data[i] = distinct ? rng() % distinct : rng();
  std::vector<std::uint32_t> expect(data.begin(), data.begin() + n);
  std::sort(expect.begin(), expect.end());
  ASSERT_TRUE(run_plan(data, bits, tile_bits, bitonic, coalesce, n));
  ASSERT_TRUE(std::equal(expect.begin(), expect.end(), data.begin()))
      << (bitonic ? "bitonic" : "butterfly") << " bits " << bits << " tile " << tile_bits
      << " coalesce " << coalesce << " n " << n;
}

TEST(SortPlan, PlansSortEveryLengthWithSmallTiles) {
  for (bool bitonic : {false, true})
    for (int tile_bits : {6, 7, 9})
      for (int coalesce : {2, 5})
        if (coalesce < tile_bits)
          for (int bits = 0; bits <= 14; ++bits) {
            const std::size_t padded = std::size_t(1) << bits;
            check(bits, tile_bits, coalesce, bitonic, padded, bits * 7 + tile_bits, 0);
            check(bits, tile_bits, coalesce, bitonic, padded, bits + 100, 3);  // duplicates
            if (!bitonic && bits > 0)  // the butterfly sorts any length in place
              for (std::size_t n : {padded / 2 + 1, padded - 1, padded - padded / 3})
                check(bits, tile_bits, coalesce, bitonic, n, unsigned(n), 0);
          }
}

// The sizes the GPU uses: every pass fits the kernel's limits, and the pass counts.
TEST(SortPlan, GpuPlansFitAndCountPasses) {
  for (bool bitonic : {false, true}) {
    for (int tile_bits : {11, 12, 13, 14})
      for (int bits = 0; bits <= 31; ++bits) EXPECT_NO_THROW(plan_sort(bits, tile_bits, bitonic));
    // A tile of 2^14 sorted in 29 register rounds (stage s in ceil(s / 4), stages 1-4 in one).
    EXPECT_EQ(plan_sort(14, 14, bitonic)[0].nrounds, 29);
    // 2^25 keys in tiles of 2^14: one tile sort, then about 1.8 passes an outer stage.
    EXPECT_EQ(plan_sort(14, 14, bitonic).size(), 1u);
    EXPECT_EQ(plan_sort(15, 14, bitonic).size(), 3u);
    EXPECT_LE(plan_sort(25, 14, bitonic).size(), 21u);
  }
}

// One pass as pass_kernel runs it (non-segmented), every thread of every block in turn
// between the barriers: keys and payloads in data[0, n), positions past n loaded as pads
// and never stored.
void run_kernel_pass(const PlanPass& pass, int tile_bits, int bits,
                     std::vector<std::uint32_t>& keys, std::vector<std::uint32_t>& vals) {
  using namespace sort::detail;
  const unsigned tile = 1u << tile_bits, n = unsigned(keys.size());
  const unsigned blocks = std::max(1u, (1u << bits) >> tile_bits);
  for (unsigned block = 0; block < blocks; ++block) {
    const TileMap map(tile_bits, pass.low_bits, pass.high_at, pass.mirror, block);
    StepCode codes[kMaxSteps];
    for (int r = 0; r < pass.nrounds; ++r)
      for (int t = 0; t < pass.rounds[r].count; ++t) {
        const PlanStep& st = pass.steps[pass.rounds[r].first + t];
        codes[pass.rounds[r].first + t] = step_code(
            pass.rounds[r], st, st.dir_global_bit >= 0 ? map.block_bit(st.dir_global_bit) : 0u);
      }
    std::vector<std::uint32_t> sk(tile), sv(tile);
    std::vector<int> filled(tile, 0);
    for (unsigned t = 0; t < kPassThreads; ++t)
      for (unsigned c = 0; c < tile; c += kPassThreads) {
        const unsigned g = map.position(map.thread_part(t), c);
        ASSERT_EQ(g,
                  plan_position(tile_bits, pass.low_bits, pass.high_at, pass.mirror, block, c | t));
        ASSERT_LT(slot(t) ^ slot(c), tile);
        ++filled[slot(t) ^ slot(c)];
        sk[slot(t) ^ slot(c)] = g < n ? keys[g] : ~0u;
        sv[slot(t) ^ slot(c)] = g < n ? vals[g] : 0u;
      }
    ASSERT_TRUE(std::all_of(filled.begin(), filled.end(), [](int f) { return f == 1; }));
    for (int r = 0; r < pass.nrounds; ++r) {
      const PlanRound& rd = pass.rounds[r];
      unsigned e[kWindowBits];
      round_offsets(rd, e);
      for (unsigned q = 0; q < tile / kRoundKeys; ++q)
        run_group(sk.data(), sv.data(), codes, rd.first, rd.first + rd.count, rd.window, e, q,
                  KeyCoding<std::uint32_t>{sort::KeyKind::u32, 0u, r == 0, r == pass.nrounds - 1});
    }
    for (unsigned t = 0; t < kPassThreads; ++t)
      for (unsigned c = 0; c < tile; c += kPassThreads) {
        const unsigned g = map.position(map.thread_part(t), c);
        if (g < n) keys[g] = sk[slot(t) ^ slot(c)], vals[g] = sv[slot(t) ^ slot(c)];
      }
  }
}

TEST(SortPlan, KernelArithmeticSortsPairsOnTheCpu) {
  for (bool bitonic : {false, true})
    for (int tile_bits : {9, 11})
      for (int bits : {0, 3, 9, 10, 11, 12, 14}) {
        const std::size_t padded = std::size_t(1) << bits;
        for (std::size_t n : {padded, padded - padded / 3}) {
          if (bitonic && n != padded) continue;  // sorted in a padded copy
          std::mt19937 rng(unsigned(n * 3 + bits));
          std::vector<std::uint32_t> keys(n), vals(n);
          for (std::size_t i = 0; i < n; ++i)
            keys[i] = rng() % (i % 2 ? 50u : ~0u), vals[i] = unsigned(i);
          if (n > 2) keys[1] = ~0u;  // a real key equal to the padding
          const std::vector<std::uint32_t> k0 = keys;
          for (const PlanPass& pass : plan_sort(bits, tile_bits, bitonic)) {
            run_kernel_pass(pass, tile_bits, bits, keys, vals);
            if (testing::Test::HasFatalFailure()) return;
          }
          std::vector<std::uint32_t> expect = k0;
          std::sort(expect.begin(), expect.end());
          ASSERT_EQ(keys, expect) << (bitonic ? "bitonic" : "butterfly") << " tile " << tile_bits
                                  << " n " << n;
          std::vector<char> seen(n, 0);
          for (std::size_t i = 0; i < n; ++i) {
            ASSERT_TRUE(vals[i] < n && !seen[vals[i]] && k0[vals[i]] == keys[i])
                << "pairs, n " << n;
            seen[vals[i]] = 1;
          }
        }
      }
}

}  // namespace
}  // namespace gridsolve
