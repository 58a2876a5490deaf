// Inputs and checks shared by the CPU and GPU sorting tests: the input patterns, the
// std::sort reference in the networks' order, and the pair-permutation check.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gridsolve/sort/ordered_key.hpp"

namespace gridsolve::testing {

enum class Pattern { random, sorted, reversed, equal, duplicates, specials };
inline const char* name(Pattern p) {
  switch (p) {
    case Pattern::random:
      return "random";
    case Pattern::sorted:
      return "sorted";
    case Pattern::reversed:
      return "reversed";
    case Pattern::equal:
      return "equal";
    case Pattern::duplicates:
      return "duplicates";
    default:
      return "specials";
  }
}
inline const Pattern all_patterns[] = {Pattern::random, Pattern::sorted,     Pattern::reversed,
                                       Pattern::equal,  Pattern::duplicates, Pattern::specials};

// Random keys over the whole range of the type (floats: both signs, wide exponents).
template <class K>
K random_key(std::mt19937_64& rng) {
  if constexpr (std::is_floating_point_v<K>) {
    std::uniform_real_distribution<double> m(-1.0, 1.0);
    std::uniform_int_distribution<int> e(-40, 40);
    return K(std::ldexp(m(rng), e(rng)));
  } else {
    return K(rng());
  }
}

// Keys with the values a sort must place right: +-0, +-inf, NaNs of both signs and
// payloads, the extremes of the integer types, mixed with ordinary keys.
template <class K>
K special_key(std::mt19937_64& rng) {
  if constexpr (std::is_floating_point_v<K>) {
    using L = std::numeric_limits<K>;
    const K pool[] = {
        K(0),     -K(0),       L::infinity(),   -L::infinity(), L::quiet_NaN(), -L::quiet_NaN(),
        L::max(), L::lowest(), L::denorm_min(), K(1),           K(-1)};
    const std::size_t pick = rng() % 16;
    return pick < std::size(pool) ? pool[pick] : random_key<K>(rng);
  } else {
    using L = std::numeric_limits<K>;
    const K pool[] = {K(0), L::max(), L::min(), K(1), K(L::max() - 1)};
    const std::size_t pick = rng() % 8;
    return pick < std::size(pool) ? pool[pick] : random_key<K>(rng);
  }
}

template <class K>
std::vector<K> make_keys(Pattern p, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<K> v(n);
  for (K& x : v) {
    switch (p) {
      case Pattern::equal:
        x = K(42);
        break;
      case Pattern::duplicates:
        x = K(int(rng() % 7) - 3);
        break;
      case Pattern::specials:
        x = special_key<K>(rng);
        break;
      default:
        x = random_key<K>(rng);
    }
  }
  if (p == Pattern::sorted || p == Pattern::reversed) {
    std::sort(v.begin(), v.end(), [](K a, K b) { return sort::key_before(a, b); });
    if (p == Pattern::reversed) std::reverse(v.begin(), v.end());
  }
  return v;
}

// std::sort in the networks' total order (ordered_key.hpp).
template <class K>
std::vector<K> reference_sort(std::vector<K> v, bool descending) {
  std::sort(v.begin(), v.end(),
            [descending](K a, K b) { return sort::key_before(a, b, descending); });
  return v;
}

// Keys compared bit for bit (NaN payloads and the sign of zero included).
template <class K>
bool same_bits(const std::vector<K>& a, const std::vector<K>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(K)) == 0);
}

// The first index where a and b differ, or -1.
template <class K>
long first_difference(const std::vector<K>& a, const std::vector<K>& b) {
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(K)) != 0) return long(i);
  return a.size() == b.size() ? -1 : long(std::min(a.size(), b.size()));
}

// The output pairs are a permutation of the input pairs.
template <class K>
bool same_pairs(const std::vector<K>& k0, const std::vector<std::uint32_t>& v0,
                const std::vector<K>& k1, const std::vector<std::uint32_t>& v1) {
  using U = sort::ordered_bits_t<K>;
  auto pairs = [](const std::vector<K>& k, const std::vector<std::uint32_t>& v) {
    std::vector<std::pair<U, std::uint32_t>> p(k.size());
    for (std::size_t i = 0; i < k.size(); ++i) p[i] = {sort::encode_key(k[i]), v[i]};
    std::sort(p.begin(), p.end());
    return p;
  };
  return k0.size() == k1.size() && pairs(k0, v0) == pairs(k1, v1);
}

}  // namespace gridsolve::testing
