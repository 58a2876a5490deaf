#include "gridsolve/solve/jacobi_rows_x86.hpp"

#include <cstdint>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GRIDSOLVE_X86_ROWS 1
#endif

namespace gridsolve {

#if GRIDSOLVE_X86_ROWS

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

namespace {
template <class T>
int scalar_until_aligned(T* o, const T* c, const T* s, const T* n, int i, int last, T keep, T c0,
                         T cx, T cy) {
  for (; i <= last && (reinterpret_cast<std::uintptr_t>(o + i) % 32) != 0; ++i)
    o[i] = keep * c[i] + c0 + cx * (c[i - 1] + c[i + 1]) + cy * (s[i] + n[i]);
  return i;
}
}  // namespace

__attribute__((target("avx2"))) int jacobi_row_avx2(double* o, const double* c, const double* s,
                                                    const double* n, int i, int last, double keep,
                                                    double c0, double cx, double cy) {
  i = scalar_until_aligned(o, c, s, n, i, last, keep, c0, cx, cy);
  const __m256d k = _mm256_set1_pd(keep), b = _mm256_set1_pd(c0), x = _mm256_set1_pd(cx),
                y = _mm256_set1_pd(cy);
  for (; i + 3 <= last; i += 4) {
    const __m256d side = _mm256_add_pd(_mm256_loadu_pd(c + i - 1), _mm256_loadu_pd(c + i + 1));
    const __m256d vert = _mm256_add_pd(_mm256_loadu_pd(s + i), _mm256_loadu_pd(n + i));
    const __m256d r = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(k, _mm256_loadu_pd(c + i)), b),
                                    _mm256_add_pd(_mm256_mul_pd(x, side), _mm256_mul_pd(y, vert)));
    _mm256_stream_pd(o + i, r);
  }
  return i;
}

__attribute__((target("avx2"))) int jacobi_row_avx2(float* o, const float* c, const float* s,
                                                    const float* n, int i, int last, float keep,
                                                    float c0, float cx, float cy) {
  i = scalar_until_aligned(o, c, s, n, i, last, keep, c0, cx, cy);
  const __m256 k = _mm256_set1_ps(keep), b = _mm256_set1_ps(c0), x = _mm256_set1_ps(cx),
               y = _mm256_set1_ps(cy);
  for (; i + 7 <= last; i += 8) {
    const __m256 side = _mm256_add_ps(_mm256_loadu_ps(c + i - 1), _mm256_loadu_ps(c + i + 1));
    const __m256 vert = _mm256_add_ps(_mm256_loadu_ps(s + i), _mm256_loadu_ps(n + i));
    const __m256 r = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(k, _mm256_loadu_ps(c + i)), b),
                                   _mm256_add_ps(_mm256_mul_ps(x, side), _mm256_mul_ps(y, vert)));
    _mm256_stream_ps(o + i, r);
  }
  return i;
}

#else

bool cpu_has_avx2() {
  return false;
}
int jacobi_row_avx2(double*, const double*, const double*, const double*, int i, int, double,
                    double, double, double) {
  return i;
}
int jacobi_row_avx2(float*, const float*, const float*, const float*, int i, int, float, float,
                    float, float) {
  return i;
}

#endif

}  // namespace gridsolve
