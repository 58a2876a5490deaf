// Counter-based random numbers (Philox4x32-10, Salmon et al., SC'11): the numbers are a pure
// function of a 128-bit counter and a 64-bit key, so any cell at any step draws the same
// values on the CPU and the GPU, on any number of ranks, with no generator state to keep.
#pragma once
#include <cmath>
#include <cstdint>

#include "gridsolve/core/hd.hpp"

namespace gridsolve {

struct Philox4x32 {
  std::uint32_t v[4];
};

GRIDSOLVE_HD inline Philox4x32 philox4x32(Philox4x32 ctr, std::uint32_t k0, std::uint32_t k1) {
  constexpr std::uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
  constexpr std::uint32_t w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t(m0) * ctr.v[0], p1 = std::uint64_t(m1) * ctr.v[2];
    const std::uint32_t hi0 = std::uint32_t(p0 >> 32), lo0 = std::uint32_t(p0);
    const std::uint32_t hi1 = std::uint32_t(p1 >> 32), lo1 = std::uint32_t(p1);
    ctr = Philox4x32{{hi1 ^ ctr.v[1] ^ k0, lo1, hi0 ^ ctr.v[3] ^ k1, lo0}};
    k0 += w0;
    k1 += w1;
  }
  return ctr;
}

// Three independent standard normal numbers for (a, b, c, d) under `key` (Box-Muller on
// the four uniforms in (0, 1) the counter gives).
template <class T>
GRIDSOLVE_HD inline void standard_normals3(std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                           std::uint32_t d, std::uint64_t key, T out[3]) {
  const Philox4x32 r =
      philox4x32(Philox4x32{{a, b, c, d}}, std::uint32_t(key), std::uint32_t(key >> 32));
  constexpr double scale = 1.0 / 4294967296.0;  // 2^-32
  double u[4];
  for (int i = 0; i < 4; ++i) u[i] = (double(r.v[i]) + 0.5) * scale;
  constexpr double two_pi = 6.283185307179586;
  const double r0 = sqrt(-2 * log(u[0])), r1 = sqrt(-2 * log(u[2]));
  out[0] = T(r0 * cos(two_pi * u[1]));
  out[1] = T(r0 * sin(two_pi * u[1]));
  out[2] = T(r1 * cos(two_pi * u[3]));
}

}  // namespace gridsolve
