// Reciprocal of a pivot on the device: the hardware's approximation refined by Newton
// steps (two in double, one in float), within an ulp of the rounded quotient. The
// correctly rounded __drcp_rn branches to a subroutine for special values, and a kernel
// with that call in each of its unrolled eliminations spills registers around every one;
// pivots here are finite, normal and checked (a zero or subnormal one gives inf or NaN,
// which the pivot checks and the solution's check report).
#pragma once
#include <cuda_runtime.h>

namespace gridsolve::tridiag {

__device__ inline double reciprocal(double v) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(v));
  double e = fma(-v, r, 1.0);
  r = fma(r, e, r);
  e = fma(-v, r, 1.0);
  return fma(r, e, r);
}
__device__ inline float reciprocal(float v) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return fmaf(r, fmaf(-v, r, 1.0f), r);
}

}  // namespace gridsolve::tridiag
