// Keys as unsigned integers whose plain order is the sort order (a total order with NaN last).
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gridsolve/core/hd.hpp"

namespace gridsolve::sort {

// Every key type maps one to one onto an unsigned integer of its width, so the networks
// compare integers only, whatever the key type:
//  - uint32: itself; int32: the sign bit flipped.
//  - float / double: the IEEE trick (flip all bits of negatives, the sign bit of
//    positives), then rotated so that -inf maps to 0. The result is a total order:
//    -inf < ... < -0 < +0 < ... < +inf < every NaN. -0 sorts just before +0, and NaNs of
//    either sign sort after +inf (positive NaNs first, each sign by payload), so
//    ascending sorts put NaN last and every bit pattern survives the round trip.
// A descending sort uses the complement (~u): exactly the reverse order, NaN first.
// The largest code (all ones) is the "sorts last" key that pads a network to a power of
// two.

// The integer type a key is ordered as.
template <class K>
using ordered_bits_t = std::conditional_t<sizeof(K) == 8, std::uint64_t, std::uint32_t>;

// What the device kernels are told about the bits they load (one instantiation serves
// float, int32 and uint32).
enum class KeyKind : int { f32, i32, u32, f64 };

template <class K>
constexpr KeyKind key_kind() {
  if constexpr (std::is_same_v<K, float>) return KeyKind::f32;
  if constexpr (std::is_same_v<K, double>) return KeyKind::f64;
  if constexpr (std::is_same_v<K, std::int32_t>) return KeyKind::i32;
  return KeyKind::u32;
}

GRIDSOLVE_HD inline std::uint32_t encode_bits(std::uint32_t b, KeyKind kind) {
  if (kind == KeyKind::f32) {
    b ^= (b >> 31) ? 0xFFFFFFFFu : 0x80000000u;
    return b - 0x007FFFFFu;  // -inf (0xFF800000) becomes 0
  }
  return kind == KeyKind::i32 ? b ^ 0x80000000u : b;
}

GRIDSOLVE_HD inline std::uint32_t decode_bits(std::uint32_t u, KeyKind kind) {
  if (kind == KeyKind::f32) {
    u += 0x007FFFFFu;
    return u ^ ((u >> 31) ? 0x80000000u : 0xFFFFFFFFu);
  }
  return kind == KeyKind::i32 ? u ^ 0x80000000u : u;
}

GRIDSOLVE_HD inline std::uint64_t encode_bits(std::uint64_t b, KeyKind) {
  b ^= (b >> 63) ? ~std::uint64_t(0) : (std::uint64_t(1) << 63);
  return b - 0x000FFFFFFFFFFFFFull;  // -inf becomes 0
}

GRIDSOLVE_HD inline std::uint64_t decode_bits(std::uint64_t u, KeyKind) {
  u += 0x000FFFFFFFFFFFFFull;
  return u ^ ((u >> 63) ? (std::uint64_t(1) << 63) : ~std::uint64_t(0));
}

// Host helpers on typed keys (the CPU path and the tests).
template <class K>
ordered_bits_t<K> encode_key(K key, bool descending = false) {
  ordered_bits_t<K> b;
  std::memcpy(&b, &key, sizeof b);
  const ordered_bits_t<K> u = encode_bits(b, key_kind<K>());
  return descending ? ordered_bits_t<K>(~u) : u;
}

template <class K>
K decode_key(ordered_bits_t<K> u, bool descending = false) {
  if (descending) u = ~u;
  const ordered_bits_t<K> b = decode_bits(u, key_kind<K>());
  K key;
  std::memcpy(&key, &b, sizeof key);
  return key;
}

// True when a sorts strictly before b in the given direction (the order of the networks,
// usable as a std::sort comparator for reference results).
template <class K>
bool key_before(K a, K b, bool descending = false) {
  return encode_key(a, descending) < encode_key(b, descending);
}

}  // namespace gridsolve::sort
