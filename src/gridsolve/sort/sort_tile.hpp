// What one thread of a GPU sort pass does to the on-chip tile: where tile positions live in
// memory and in shared memory, the step codes, and the compare-exchange rounds. Host and
// device code alike, so that the CPU tests run the kernel's own arithmetic.
#pragma once
#include <cstdint>
#include <type_traits>

#include "gridsolve/core/hd.hpp"
#include "gridsolve/sort/ordered_key.hpp"
#include "gridsolve/sort/sort_plan.hpp"

namespace gridsolve::sort::detail {

constexpr int kRoundKeys = 1 << kWindowBits;
constexpr int kPassThreads = 256;  // threads of a pass block: tile position bits 0..7

struct NoValue {};
template <class V>
constexpr bool has_values = !std::is_same_v<V, NoValue>;

// a holds the lower index; it ends with the smaller key when a_min. Strict comparisons:
// equal keys never move, so pads (the largest code) never pass a real key in the butterfly.
template <class U, class V>
GRIDSOLVE_HD inline void exchange(U& ka, V& va, U& kb, V& vb, bool a_min) {
  if constexpr (!has_values<V>) {
    const bool swap = kb < ka;
    const U lo = swap ? kb : ka, hi = swap ? ka : kb;
    ka = a_min ? lo : hi, kb = a_min ? hi : lo;
  } else if (a_min ? kb < ka : ka < kb) {
    const U t = ka;
    ka = kb, kb = t;
    const V w = va;
    va = vb, vb = w;
  }
}

// Shared-memory slot of tile position p: tile bits 5..8 folded into the bank bits, so that
// 32 lanes reading the lowest five tile bits outside a round's window (or tile bits 0..4
// at the global loads) hit 32 different banks. Linear over xor: slot(a ^ b) = slot(a) ^
// slot(b).
GRIDSOLVE_HD inline unsigned slot(unsigned p) {
  const unsigned x = (p >> 5) & 15u;
  return p ^ (x ^ (x << 1));
}

// The global positions of a block's tile (plan_position, in 32 bits: full arrays hold at
// most 2^31 keys), split so that a thread computes its own part once.
struct TileMap {
  unsigned base = 0;  // the block's global bits
  unsigned low_mask = 0, top = 0, mirror_mask = 0;
  int low = 0, high = 0;
  bool mirror = false;

  GRIDSOLVE_HD TileMap(int tile_bits, int low_bits, int high_at, bool mirrored, unsigned block)
      : low_mask((1u << low_bits) - 1),
        top(1u << (tile_bits - 1)),
        low(low_bits),
        high(high_at),
        mirror(mirrored) {
    const int gap = high_at - low_bits, top_global = high_at + tile_bits - low_bits;
    base = ((block & ((1u << gap) - 1)) << low_bits) | ((block >> gap) << top_global);
    mirror_mask = top_global >= 32 ? ~0u : (1u << top_global) - 1;
  }
  // Tile bits moved to their global places (a bit permutation: disjoint parts can be
  // placed apart and or-ed).
  GRIDSOLVE_HD unsigned place(unsigned p) const { return (p & low_mask) | ((p >> low) << high); }
  // The thread's part: base | place(t) for t below the top bit.
  GRIDSOLVE_HD unsigned thread_part(unsigned t) const { return base | place(t); }
  // Position of tile position t | c, t the thread's part (from thread_part).
  GRIDSOLVE_HD unsigned position(unsigned thread_part_t, unsigned c) const {
    unsigned g = thread_part_t | place(mirror ? c & ~top : c);
    if (mirror && (c & top)) g ^= mirror_mask;
    return g;
  }
  GRIDSOLVE_HD unsigned block_bit(int b) const { return (base >> b) & 1u; }
};

// A round's step, decoded once per block: which layer (partner bit relative to the window,
// + 4 for an on-chip flip within the window) and when its comparators are reversed: in the
// groups whose base has a bit of out_mask set (xor dir_block), and within a group for the
// keys r whose bit is set in in_pattern.
struct StepCode {
  unsigned out_mask = 0;
  unsigned short in_pattern = 0;
  unsigned char which = 0;
  unsigned char dir_block = 0;
};

// dir_block_bit: the block's value of the step's dir_global_bit (0 where none).
GRIDSOLVE_HD inline StepCode step_code(const PlanRound& rd, const PlanStep& st,
                                       unsigned dir_block_bit) {
  StepCode c;
  // A mirrored round's flip is the plain stride of its top window bit.
  c.which = (unsigned char)(st.bit - rd.window + (st.flip && !rd.mirror ? kWindowBits : 0));
  const int d = st.dir_tile_bit;
  if (d >= 0) {
    if (d >= rd.window && d < rd.window + kWindowBits) {
      for (int k = 0; k < kRoundKeys; ++k)
        if ((k >> (d - rd.window)) & 1) c.in_pattern = (unsigned short)(c.in_pattern | (1u << k));
    } else {
      c.out_mask = 1u << d;
    }
  }
  // After a mirrored round's flip, keys 8..15 sit in mirrored order.
  if (rd.mirror && !st.flip) c.in_pattern = (unsigned short)(c.in_pattern ^ 0xFF00u);
  c.dir_block = (unsigned char)(st.dir_global_bit >= 0 ? dir_block_bit : 0u);
  return c;
}

// The slot offsets of a round's keys: key r sits at slot(base) ^ (xor of e[b] over the
// bits b of r); e[b] = slot(2^(window + b)), and for a mirrored round e[3] = slot of the
// mirror mask 2^(window + 4) - 1.
GRIDSOLVE_HD inline void round_offsets(const PlanRound& rd, unsigned (&e)[kWindowBits]) {
  for (int b = 0; b < kWindowBits; ++b) e[b] = slot(1u << (rd.window + b));
  if (rd.mirror) e[kWindowBits - 1] = slot((2u << (rd.window + kWindowBits - 1)) - 1);
}

enum Dir { all_up, all_down, mixed };

// One comparator layer on a thread's 16 keys (tile positions base | (r << window)): r
// against r | 2^J, or for Flip against its mirror r ^ (2^(J+1) - 1) (window 0). Bit r of
// `down` reverses the comparator whose lower key is r (D == mixed).
template <int J, bool Flip, Dir D, class U, class V>
GRIDSOLVE_HD inline void layer(U (&k)[kRoundKeys], V (&v)[kRoundKeys], unsigned down) {
  GRIDSOLVE_UNROLL
  for (int r = 0; r < kRoundKeys; ++r) {
    if (r & (1 << J)) continue;
    const int q = Flip ? (r ^ ((2 << J) - 1)) : (r | (1 << J));
    const bool up = D == all_up || (D == mixed && !((down >> r) & 1u));
    exchange(k[r], v[r], k[q], v[q], up);
  }
}

template <Dir D, class U, class V>
GRIDSOLVE_HD inline void run_layer(int which, U (&k)[kRoundKeys], V (&v)[kRoundKeys],
                                   unsigned down) {
  switch (which) {
    case 0:
      layer<0, false, D>(k, v, down);
      break;
    case 1:
      layer<1, false, D>(k, v, down);
      break;
    case 2:
      layer<2, false, D>(k, v, down);
      break;
    case 3:
      layer<3, false, D>(k, v, down);
      break;
    case 4:
      layer<0, true, D>(k, v, down);
      break;
    case 5:
      layer<1, true, D>(k, v, down);
      break;
    case 6:
      layer<2, true, D>(k, v, down);
      break;
    default:
      layer<3, true, D>(k, v, down);
  }
}

// Shared memory holds keys as loaded: the first round of a pass encodes them
// (ordered_key.hpp; xor flip, all ones for a descending sort), the last decodes them.
template <class U>
struct KeyCoding {
  KeyKind kind = KeyKind::u32;
  U flip = 0;
  bool encode = false, decode = false;
};

// Group q of a round: the 16 keys at base | (r << w) (keys 8..15 mirrored in a mirrored
// round), base = q with four zero bits inserted at w, through steps [first, last); e from
// round_offsets.
template <class U, class V>
GRIDSOLVE_HD inline void run_group(U* sk, V* sv, const StepCode* codes, int first, int last, int w,
                                   const unsigned (&e)[kWindowBits], unsigned q,
                                   const KeyCoding<U>& coding) {
  const unsigned base = (q & ((1u << w) - 1)) | ((q >> w) << (w + kWindowBits));
  unsigned at[kRoundKeys];
  at[0] = slot(base);
  GRIDSOLVE_UNROLL
  for (int i = 1; i < kRoundKeys; ++i)
    at[i] = at[i & (i - 1)] ^ e[(i & 1) ? 0 : (i & 2) ? 1 : (i & 4) ? 2 : 3];
  U k[kRoundKeys];
  V v[kRoundKeys];
  GRIDSOLVE_UNROLL
  for (int i = 0; i < kRoundKeys; ++i) {
    k[i] = sk[at[i]];
    if (coding.encode) k[i] = U(encode_bits(k[i], coding.kind) ^ coding.flip);
    if constexpr (has_values<V>) v[i] = sv[at[i]];
  }
  for (int s = first; s < last; ++s) {
    const StepCode c = codes[s];
    const bool reverse_group = ((base & c.out_mask) != 0) != bool(c.dir_block);
    const unsigned down = reverse_group ? (~unsigned(c.in_pattern) & 0xFFFFu) : c.in_pattern;
    if (down == 0)
      run_layer<all_up>(c.which, k, v, 0u);
    else if (down == 0xFFFFu)
      run_layer<all_down>(c.which, k, v, 0u);
    else
      run_layer<mixed>(c.which, k, v, down);
  }
  GRIDSOLVE_UNROLL
  for (int i = 0; i < kRoundKeys; ++i) {
    sk[at[i]] = coding.decode ? U(decode_bits(U(k[i] ^ coding.flip), coding.kind)) : k[i];
    if constexpr (has_values<V>) sv[at[i]] = v[i];
  }
}

}  // namespace gridsolve::sort::detail
