// Correctly rounded reciprocal on the device, without the general division's
// special-case path: the pivots of the GPU eliminations are divided through by it.
#pragma once
#include <cuda_runtime.h>

namespace gridsolve::tridiag {

__device__ inline double reciprocal(double v) {
  return __drcp_rn(v);
}
__device__ inline float reciprocal(float v) {
  return __frcp_rn(v);
}

}  // namespace gridsolve::tridiag
