// A small mixed-radix (2, 3, 4, 5, 8) Stockham FFT written as single butterflies, callable on
// host and device: the demag column pass runs it in GPU shared memory, the tests on the CPU.
#pragma once
#include <array>

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

// The radices of a length: 8s first, then 4, 2, 3, 5 (fewer passes through memory); count 0
// when another prime divides it.
struct StockhamPlan {
  int n = 0;
  int count = 0;
  int radix[32] = {};
  static StockhamPlan make(int n) {
    StockhamPlan p;
    p.n = n;
    int r = n;
    for (int f : {8, 4, 2, 3, 5})
      while (r % f == 0 && r > 1) {
        p.radix[p.count++] = f;
        r /= f;
      }
    if (r != 1) p.count = 0;
    return p;
  }
  bool valid() const { return count > 0 || n == 1; }
};

// The DFT of R values in place; sign -1 forward, +1 inverse.
template <int R, class T>
GRIDSOLVE_HD inline void small_dft(Cx<T> v[R], int sign) {
  if constexpr (R == 2) {
    const Cx<T> a = v[0];
    v[0] = a + v[1];
    v[1] = a - v[1];
  } else if constexpr (R == 4) {
    const Cx<T> s02 = v[0] + v[2], d02 = v[0] - v[2];
    const Cx<T> s13 = v[1] + v[3], d13 = times_i(v[1] - v[3], sign);
    v[0] = s02 + s13;
    v[2] = s02 - s13;
    v[1] = d02 + d13;
    v[3] = d02 - d13;
  } else if constexpr (R == 8) {
    // Two DFTs of 4 (even and odd inputs), joined by the twiddles exp(sign 2 pi i k / 8).
    Cx<T> e[4] = {v[0], v[2], v[4], v[6]}, o[4] = {v[1], v[3], v[5], v[7]};
    small_dft<4>(e, sign);
    small_dft<4>(o, sign);
    const T h = T(0.70710678118654752440);  // 1 / sqrt(2)
    const Cx<T> w1 = scale(o[1] + times_i(o[1], sign), h);
    const Cx<T> w2 = times_i(o[2], sign);
    const Cx<T> w3 = scale(times_i(o[3], sign) - o[3], h);
    v[0] = e[0] + o[0];
    v[4] = e[0] - o[0];
    v[1] = e[1] + w1;
    v[5] = e[1] - w1;
    v[2] = e[2] + w2;
    v[6] = e[2] - w2;
    v[3] = e[3] + w3;
    v[7] = e[3] - w3;
  } else if constexpr (R == 3) {
    const T h = T(0.86602540378443864676);  // sqrt(3) / 2
    const Cx<T> s = v[1] + v[2];
    const Cx<T> t = v[0] - scale(s, T(0.5));
    const Cx<T> u = times_i(scale(v[1] - v[2], h), sign);
    v[0] = v[0] + s;
    v[1] = t + u;
    v[2] = t - u;
  } else {
    static_assert(R == 5, "radix 2, 3, 4, 5 or 8");
    // cos and sin of 2 pi / 5 and 4 pi / 5.
    const T c1 = T(0.30901699437494742410), c2 = T(-0.80901699437494742410);
    const T s1 = T(0.95105651629515357212), s2 = T(0.58778525229247312917);
    const Cx<T> a1 = v[1] + v[4], b1 = v[1] - v[4], a2 = v[2] + v[3], b2 = v[2] - v[3];
    const Cx<T> t1 = v[0] + scale(a1, c1) + scale(a2, c2);
    const Cx<T> t2 = v[0] + scale(a1, c2) + scale(a2, c1);
    const Cx<T> u1 = times_i(scale(b1, s1) + scale(b2, s2), sign);
    const Cx<T> u2 = times_i(scale(b1, s2) - scale(b2, s1), sign);
    v[0] = v[0] + a1 + a2;
    v[1] = t1 + u1;
    v[4] = t1 - u1;
    v[2] = t2 + u2;
    v[3] = t2 - u2;
  }
}

// Butterfly j (0 .. n/R - 1) of the radix-R pass whose finished sub-transforms have length
// ns (1 in the first pass, then the product of the radices before): reads
// in[j + t n/R], twiddles by exp(sign 2 pi i k t / (ns R)) with k = j mod ns, transforms,
// writes out[(j / ns) ns R + k + t ns]. tw[m] = exp(-2 pi i m / n).
template <int R, class T>
GRIDSOLVE_HD inline void stockham_butterfly(int j, int n, int ns, const Cx<T>* in, Cx<T>* out,
                                            const Cx<T>* tw, int sign) {
  Cx<T> v[R];
  const int k = j % ns, stride = n / R, step = n / (ns * R);
  for (int t = 0; t < R; ++t) {
    Cx<T> a = in[j + t * stride];
    if (t > 0 && k > 0) {
      Cx<T> w = tw[k * t * step];
      if (sign > 0) w.im = -w.im;
      a = a * w;
    }
    v[t] = a;
  }
  small_dft<R>(v, sign);
  const int d = (j / ns) * ns * R + k;
  for (int t = 0; t < R; ++t) out[d + t * ns] = v[t];
}

template <class T>
GRIDSOLVE_HD inline void stockham_butterfly(int radix, int j, int n, int ns, const Cx<T>* in,
                                            Cx<T>* out, const Cx<T>* tw, int sign) {
  switch (radix) {
    case 2:
      stockham_butterfly<2>(j, n, ns, in, out, tw, sign);
      break;
    case 3:
      stockham_butterfly<3>(j, n, ns, in, out, tw, sign);
      break;
    case 4:
      stockham_butterfly<4>(j, n, ns, in, out, tw, sign);
      break;
    case 8:
      stockham_butterfly<8>(j, n, ns, in, out, tw, sign);
      break;
    default:
      stockham_butterfly<5>(j, n, ns, in, out, tw, sign);
      break;
  }
}

}  // namespace gridsolve::demag
