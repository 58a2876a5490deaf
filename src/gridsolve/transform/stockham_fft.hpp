// The per-thread arithmetic of a register-resident Stockham FFT, callable on host and
// device: the GPU demag column pass runs it with one thread block per column, the tests
// drive it thread by thread on the CPU.
//
// A transform of length n = 16^m * r0 (r0 = 1, 2, 4 or 8; n >= 16) is done by n / 16
// threads. Thread j holds the 16 values x[j + i n/16], i = 0 .. 15, before and after
// the transform (so the result comes out in natural order, spread the same way). m radix-16
// passes run in registers, each but the last followed by an exchange through memory
// (values to radix16_destination, then back in the natural spread); a last radix-r0 pass
// needs no exchange after it, because its outputs land where its inputs were.
#pragma once

#include <cmath>
#include <cstdint>

#include "gridsolve/core/hd.hpp"

namespace gridsolve::demag {

template <class T>
struct Cx {
  T re, im;
};

template <class T>
GRIDSOLVE_HD inline Cx<T> operator+(Cx<T> a, Cx<T> b) {
  return {a.re + b.re, a.im + b.im};
}
template <class T>
GRIDSOLVE_HD inline Cx<T> operator-(Cx<T> a, Cx<T> b) {
  return {a.re - b.re, a.im - b.im};
}
template <class T>
GRIDSOLVE_HD inline Cx<T> operator*(Cx<T> a, Cx<T> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <class T>
GRIDSOLVE_HD inline Cx<T> scale(Cx<T> a, T s) {
  return {a.re * s, a.im * s};
}
// i * a times `sign` (+1 or -1).
template <class T>
GRIDSOLVE_HD inline Cx<T> times_i(Cx<T> a, int sign) {
  return sign > 0 ? Cx<T>{-a.im, a.re} : Cx<T>{a.im, -a.re};
}
// a * w for the forward transform (sign -1), a * conj(w) for the inverse (sign +1).
template <class T>
GRIDSOLVE_HD inline Cx<T> twiddle(Cx<T> a, Cx<T> w, int sign) {
  if (sign > 0) w.im = -w.im;
  return a * w;
}

// Entry m of a twiddle table; on the GPU through the read-only data cache, which also
// tells the compiler that no store of the kernel can change it.
template <class T>
GRIDSOLVE_HD inline Cx<T> load_twiddle(const Cx<T>* tw, int m) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == sizeof(float)) {
    const float2 w = __ldg(reinterpret_cast<const float2*>(tw) + m);
    return {w.x, w.y};
  } else {
    const double2 w = __ldg(reinterpret_cast<const double2*>(tw) + m);
    return {w.x, w.y};
  }
#else
  return tw[m];
#endif
}

// The DFT of R values v[0], v[s], .. v[(R-1) s] in place; sign -1 forward, +1 inverse.
template <int R, class T>
GRIDSOLVE_HD inline void small_dft(Cx<T>* v, int s, int sign) {
  if constexpr (R == 2) {
    const Cx<T> a = v[0];
    v[0] = a + v[s];
    v[s] = a - v[s];
  } else if constexpr (R == 4) {
    const Cx<T> s02 = v[0] + v[2 * s], d02 = v[0] - v[2 * s];
    const Cx<T> s13 = v[s] + v[3 * s], d13 = times_i(v[s] - v[3 * s], sign);
    v[0] = s02 + s13;
    v[2 * s] = s02 - s13;
    v[s] = d02 + d13;
    v[3 * s] = d02 - d13;
  } else {
    static_assert(R == 8, "radix 2, 4 or 8");
    // Two DFTs of 4 (even and odd inputs), joined by the twiddles exp(sign 2 pi i k / 8).
    Cx<T> e[4] = {v[0], v[2 * s], v[4 * s], v[6 * s]}, o[4] = {v[s], v[3 * s], v[5 * s], v[7 * s]};
    small_dft<4>(e, 1, sign);
    small_dft<4>(o, 1, sign);
    const T h = T(0.70710678118654752440);  // 1 / sqrt(2)
    const Cx<T> w1 = scale(o[1] + times_i(o[1], sign), h);
    const Cx<T> w2 = times_i(o[2], sign);
    const Cx<T> w3 = scale(times_i(o[3], sign) - o[3], h);
    v[0] = e[0] + o[0];
    v[4 * s] = e[0] - o[0];
    v[s] = e[1] + w1;
    v[5 * s] = e[1] - w1;
    v[2 * s] = e[2] + w2;
    v[6 * s] = e[2] - w2;
    v[3 * s] = e[3] + w3;
    v[7 * s] = e[3] - w3;
  }
}

// The DFT of 16 values in place, as 4 x 4: DFTs of 4 along the stride-4 subsequences, the
// twiddles exp(sign 2 pi i r q / 16), DFTs of 4 across them.
template <class T>
GRIDSOLVE_HD inline void dft16(Cx<T> v[16], int sign) {
  for (int r = 0; r < 4; ++r) small_dft<4>(v + r, 4, sign);
  // exp(-2 pi i n / 16) for n = r q = 0 .. 9.
  const T c = T(0.92387953251128675613), s = T(0.38268343236508977173);
  const T h = T(0.70710678118654752440);
  const Cx<T> w[10] = {{T(1), T(0)}, {c, -s},   {h, -h},   {s, -c},  {T(0), T(-1)},
                       {-s, -c},     {-h, -h},  {-c, -s},  {T(-1), T(0)}, {-c, s}};
  for (int r = 1; r < 4; ++r)
    for (int q = 1; q < 4; ++q) v[r + 4 * q] = twiddle(v[r + 4 * q], w[r * q], sign);
  // Now v[r + 4 q] holds the q-th output of subsequence r; the DFT of 4 across r gives
  // X[q + 4 s'] in v[4 q + s'], so the result is transposed back into place.
  Cx<T> t[16];
  for (int q = 0; q < 4; ++q) {
    Cx<T> a[4] = {v[4 * q], v[1 + 4 * q], v[2 + 4 * q], v[3 + 4 * q]};
    small_dft<4>(a, 1, sign);
    for (int s2 = 0; s2 < 4; ++s2) t[q + 4 * s2] = a[s2];
  }
  for (int k = 0; k < 16; ++k) v[k] = t[k];
}

// The shape of a register transform: m radix-16 passes and the last radix (1: none).
struct RegisterFftShape {
  int n = 0, passes16 = 0, last_radix = 1;
  static RegisterFftShape make(int n) {
    RegisterFftShape s;
    s.n = n;
    if (n < 16 || (n & (n - 1)) != 0) return s;  // invalid: passes16 == 0
    int r = n;
    while (r % 16 == 0) {
      r /= 16;
      ++s.passes16;
    }
    s.last_radix = r;
    return s;
  }
  bool valid() const { return passes16 > 0; }
  int threads() const { return n / 16; }
};

// The twiddles of a register transform of length n, as one table: first exp(-2 pi i m / n)
// for m < n (the last pass reads those), then for each radix-16 pass s >= 1 (sub-transforms
// of length ns = 16^s) its 15 ns values exp(-2 pi i k t / (16 ns)) at (t - 1) ns + k, k < ns,
// t = 1 .. 15: the threads of a warp, consecutive in k, read consecutive entries (read from
// the plain table at k t n / (16 ns), they hit a memory line each and bound the pass).
GRIDSOLVE_HD inline int pass_twiddle_offset(int n, int s) {
  int offset = n;
  for (int q = 1, ns = 16; q < s; ++q, ns *= 16) offset += 15 * ns;
  return offset;
}
inline int register_fft_twiddle_count(int n) {
  return pass_twiddle_offset(n, RegisterFftShape::make(n).passes16);
}
// The table for length n in out[0 .. register_fft_twiddle_count(n)), computed in double.
template <class T>
void fill_register_fft_twiddles(int n, Cx<T>* out) {
  const auto at = [](double turns) {
    return Cx<T>{T(std::cos(6.28318530717958647692 * turns)),
                 T(-std::sin(6.28318530717958647692 * turns))};
  };
  for (int m = 0; m < n; ++m) out[m] = at(double(m) / n);
  const RegisterFftShape shape = RegisterFftShape::make(n);
  for (int s = 1, ns = 16; s < shape.passes16; ++s, ns *= 16) {
    Cx<T>* table = out + pass_twiddle_offset(n, s);
    for (int t = 1; t < 16; ++t)
      for (int k = 0; k < ns; ++k)
        table[(t - 1) * ns + k] = at(double(std::int64_t(k) * t % (16 * ns)) / (16.0 * ns));
  }
}

// Radix-16 pass s of thread j, whose finished sub-transforms have length ns = 16^s: v[t]
// holds x[j + t n/16]; twiddled by exp(sign 2 pi i k t / (16 ns)), k = j mod ns, from
// tw (the table of fill_register_fft_twiddles), and transformed.
template <class T>
GRIDSOLVE_HD inline void radix16_pass(Cx<T> v[16], int j, int n, int s, int ns, const Cx<T>* tw,
                                      int sign) {
  if (s > 0) {
    const Cx<T>* pass = tw + pass_twiddle_offset(n, s);
    const int k = j % ns;
    for (int t = 1; t < 16; ++t)
      v[t] = twiddle(v[t], load_twiddle(pass, (t - 1) * ns + k), sign);
  }
  dft16(v, sign);
}

// Where output t of thread j's radix-16 pass (sub-transforms of length ns) belongs.
GRIDSOLVE_HD inline int radix16_destination(int j, int t, int ns) {
  return (j / ns) * 16 * ns + j % ns + t * ns;
}

// The last pass, of radix R = n / 16^m, over sub-transforms of length n / R: thread j does
// the 16 / R butterflies b = j + u n/16 (u < 16 / R), whose inputs and outputs are its own
// values u, u + 16/R, u + 2 16/R, ...
template <int R, class T>
GRIDSOLVE_HD inline void last_pass(Cx<T> v[16], int j, int n, const Cx<T>* tw, int sign) {
  constexpr int spread = 16 / R;
  for (int u = 0; u < spread; ++u) {
    const int b = j + u * (n / 16);  // the butterfly, also its k (b < n / R)
    for (int t = 1; t < R; ++t) v[u + t * spread] = twiddle(v[u + t * spread], load_twiddle(tw, b * t), sign);
    small_dft<R>(v + u, spread, sign);
  }
}

}  // namespace gridsolve::demag
