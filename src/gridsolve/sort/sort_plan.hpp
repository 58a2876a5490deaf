// The pass plan of a GPU network sort: which keys each pass gathers into an on-chip tile,
// which comparator layers it runs there, and in which register rounds.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "gridsolve/core/hd.hpp"

namespace gridsolve::sort::detail {

// A pass moves every key once from memory to an on-chip tile of 2^tile_bits keys and
// back. Tile position p (tile_bits bits) stands for the global position
//   g = block bits | (p's low `low_bits` bits) | (p's other bits << high_at),
// so a tile holds keys whose positions differ only in global bits [0, low_bits) (whole
// 128-byte lines: coalesced) and [high_at, high_at + tile_bits - low_bits) (long strides).
// The block index fills the global bits outside the tile. A contiguous tile has
// low_bits == high_at == tile_bits.
//
// The butterfly's flip of stage S (i against its mirror i ^ (2^S - 1)) connects keys that
// differ in every bit below S, most of them outside a gathered tile. A pass that starts
// stage S therefore gathers mirrored: the tile's top bit stands for global bit S - 1, and
// tile positions with it set hold the mirrors g ^ (2^S - 1) of the positions below. The
// flip is then an ordinary tile stride, and every comparator in that upper half is reversed
// (the position lower in the tile is higher in memory).
constexpr int kWindowBits = 4;  // a round holds 2^4 keys per thread in registers
constexpr int kMaxSteps = 128;
constexpr int kMaxRounds = 128;

// One comparator layer in tile coordinates: p (bit `bit` clear) against p ^ 2^bit, or,
// for an on-chip flip, against p ^ (2^(bit+1) - 1). The smaller key goes to p, unless the
// lower position's tile bit dir_tile_bit, or the block's global bit dir_global_bit, is set
// (each -1 where unused): the bitonic network's descending blocks and mirrored halves.
struct PlanStep {
  std::int8_t bit = 0;
  std::int8_t flip = 0;
  std::int8_t dir_tile_bit = -1;
  std::int8_t dir_global_bit = -1;
};

// Consecutive steps whose partners all lie within tile bits [window, window + 4): each
// thread loads 16 keys from shared memory once for all of them. `mirror`: the round starts
// with an on-chip flip of bit j = window + 3, whose partners differ in bits below the
// window too; the thread's keys 8..15 are then the mirrors p ^ (2^(j+1) - 1) of keys
// 0..7 (the flip is a plain stride of 8 in the registers, and later steps of the round
// are reversed in the upper eight, which sit in mirrored order).
struct PlanRound {
  std::int8_t window = 0;
  std::int8_t first = 0;
  std::int8_t count = 0;
  std::int8_t mirror = 0;
};

struct PlanPass {
  int low_bits = 0;
  int high_at = 0;
  bool mirror = false;
  bool contiguous = false;  // low_bits == tile_bits (no long strides)
  int nsteps = 0, nrounds = 0;
  PlanStep steps[kMaxSteps];
  PlanRound rounds[kMaxRounds];
};

// The global position of tile position p in block `block` (before mirroring) and with it.
GRIDSOLVE_HD inline unsigned long long plan_position(int tile_bits, int low_bits, int high_at,
                                                     bool mirror, unsigned long long block,
                                                     unsigned p) {
  using ull = unsigned long long;
  const int gap = high_at - low_bits;  // global bits [low_bits, high_at) come from the block
  const int top = high_at + tile_bits - low_bits;
  const ull base = ((block & ((ull(1) << gap) - 1)) << low_bits) | ((block >> gap) << top);
  const unsigned top_bit = 1u << (tile_bits - 1);
  const unsigned q = mirror ? (p & ~top_bit) : p;
  ull g = base | (q & ((1u << low_bits) - 1)) | (ull(q >> low_bits) << high_at);
  if (mirror && (p & top_bit)) g ^= (ull(1) << top) - 1;
  return g;
}

// The block's global bit b (a bit outside the tile), for dir_global_bit.
GRIDSOLVE_HD inline unsigned plan_block_bit(int tile_bits, int low_bits, int high_at,
                                            unsigned long long block, int b) {
  const unsigned long long g = plan_position(tile_bits, low_bits, high_at, false, block, 0);
  return unsigned(g >> b) & 1u;
}

namespace plan_impl {

struct Builder {
  int tile_bits, bits;
  bool bitonic;
  PlanPass pass;

  void start(int low_bits, int high_at, bool mirror) {
    pass = PlanPass{};
    pass.low_bits = low_bits;
    pass.high_at = high_at;
    pass.mirror = mirror;
    pass.contiguous = low_bits == tile_bits;
  }
  int tile_bit(int k) const {  // the tile bit standing for global bit k
    if (k < pass.low_bits) return k;
    const int t = pass.low_bits + k - pass.high_at;
    if (k >= pass.high_at && t < tile_bits) return t;
    return -1;
  }
  // Comparator layer of stage s with stride 2^k (global); flip: the butterfly's first.
  void step(int s, int k, bool flip) {
    if (pass.nsteps == kMaxSteps) throw std::logic_error("sort plan: too many steps");
    PlanStep st;
    st.bit = std::int8_t(tile_bit(k));
    if (st.bit < 0) throw std::logic_error("sort plan: stride outside the tile");
    // A flip on chip needs global bits 0..k in the tile as themselves; in a gathered pass
    // the flip is the mirror bit's plain stride.
    st.flip = std::int8_t(flip && !pass.mirror);
    if (flip && pass.mirror && st.bit != tile_bits - 1)
      throw std::logic_error("sort plan: mirrored flip not on the top bit");
    if (st.flip && k >= pass.low_bits) throw std::logic_error("sort plan: flip off chip");
    if (!bitonic) {
      st.dir_tile_bit = std::int8_t(pass.mirror ? tile_bits - 1 : -1);
    } else if (s < bits) {
      const int t = tile_bit(s);
      if (t >= 0)
        st.dir_tile_bit = std::int8_t(t);
      else
        st.dir_global_bit = std::int8_t(s);
    }
    pass.steps[pass.nsteps++] = st;
  }
  void stage(int s, int from, int to) {  // stage s, strides 2^from .. 2^to
    for (int k = from; k >= to; --k) step(s, k, !bitonic && k == s - 1);
  }
  // Groups the steps into register rounds.
  void finish(std::vector<PlanPass>& out) {
    int i = 0;
    while (i < pass.nsteps) {
      const PlanStep& st = pass.steps[i];
      PlanRound r;
      r.first = std::int8_t(i);
      r.mirror = std::int8_t(st.flip && st.bit >= kWindowBits);
      const int a = r.mirror  ? st.bit - (kWindowBits - 1)
                    : st.flip ? 0
                              : std::clamp(st.bit - (kWindowBits - 1), 0, tile_bits - kWindowBits);
      r.window = std::int8_t(a);
      while (i < pass.nsteps) {
        const PlanStep& n = pass.steps[i];
        const bool later = i > r.first;
        if (n.bit < a || n.bit >= a + kWindowBits) break;
        if (n.flip && later && (r.mirror || a != 0)) break;  // a new flip, a new round
        if (r.mirror && later && (n.dir_tile_bit >= 0 || n.dir_global_bit >= 0))
          throw std::logic_error("sort plan: directions in a mirrored round");
        ++r.count, ++i;
      }
      if (pass.nrounds == kMaxRounds) throw std::logic_error("sort plan: too many rounds");
      pass.rounds[pass.nrounds++] = r;
    }
    out.push_back(pass);
  }
};

}  // namespace plan_impl

// The passes sorting 2^bits positions (bits <= tile_bits: one contiguous tile pass, which
// also sorts each of several segments of 2^bits in a tile). Past the tile, each outer
// stage S needs its strides 2^(S-1) .. 1: long strides in gathered passes (tile_bits -
// coalesce_bits of them at a time, the low coalesce_bits bits gathered as whole lines),
// and a stage's short tail in the same pass as the next stage's first long strides.
inline std::vector<PlanPass> plan_sort(int bits, int tile_bits, bool bitonic,
                                       int coalesce_bits = 5) {
  if (tile_bits < kWindowBits || tile_bits <= coalesce_bits)
    throw std::logic_error("sort plan: tile too small");
  std::vector<PlanPass> out;
  plan_impl::Builder b{tile_bits, bits, bitonic, {}};
  b.start(tile_bits, tile_bits, false);
  for (int s = 1; s <= std::min(bits, tile_bits); ++s) b.stage(s, s - 1, 0);
  b.finish(out);
  const int H = tile_bits - coalesce_bits;  // long strides per gathered pass
  int S = tile_bits + 1, k = S - 1;
  while (S <= bits) {
    if (k == S - 1 || k + 1 > tile_bits) {
      // Long strides only: 2^k .. 2^(k-H+1), mirrored where the stage starts.
      const bool starts = k == S - 1;
      b.start(coalesce_bits, k - H + 1, starts && !bitonic);
      b.stage(S, k, k - H + 1);
      b.finish(out);
      k -= H;
      continue;
    }
    // The tail 2^k .. 1 as low bits, and the next stage's first strides as high bits.
    const int low = std::max(k + 1, coalesce_bits);
    const int head = S < bits ? tile_bits - low : 0;
    if (head == 0) {
      b.start(tile_bits, tile_bits, false);
      b.stage(S, k, 0);
      b.finish(out);
      ++S, k = S - 1;
      continue;
    }
    b.start(low, S + 1 - head, !bitonic);
    b.stage(S, k, 0);
    b.stage(S + 1, S, S + 1 - head);
    b.finish(out);
    ++S;
    k = S - 1 - head;
  }
  return out;
}

}  // namespace gridsolve::sort::detail
