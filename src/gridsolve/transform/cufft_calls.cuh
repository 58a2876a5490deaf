// cuFFT's float and double calls under one name, and its errors as gridsolve Errors: for the
// GPU transforms. Included by CUDA sources only.
#pragma once
#include <cufft.h>
#include <fmt/format.h>

#include "gridsolve/core/error.hpp"

namespace gridsolve {

inline void check_fft(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS)
    throw Error(fmt::format("cuFFT {} failed (error {})", what, int(r)), Error::Kind::runtime);
}

template <class T>
struct Cufft;
template <>
struct Cufft<float> {
  using complex = cufftComplex;
  static constexpr cufftType r2c = CUFFT_R2C, c2r = CUFFT_C2R, c2c = CUFFT_C2C;
  static cufftResult exec_r2c(cufftHandle p, float* in, complex* out) {
    return cufftExecR2C(p, in, out);
  }
  static cufftResult exec_c2r(cufftHandle p, complex* in, float* out) {
    return cufftExecC2R(p, in, out);
  }
  static cufftResult exec_c2c(cufftHandle p, complex* in, complex* out, int dir) {
    return cufftExecC2C(p, in, out, dir);
  }
};
template <>
struct Cufft<double> {
  using complex = cufftDoubleComplex;
  static constexpr cufftType r2c = CUFFT_D2Z, c2r = CUFFT_Z2D, c2c = CUFFT_Z2Z;
  static cufftResult exec_r2c(cufftHandle p, double* in, complex* out) {
    return cufftExecD2Z(p, in, out);
  }
  static cufftResult exec_c2r(cufftHandle p, complex* in, double* out) {
    return cufftExecZ2D(p, in, out);
  }
  static cufftResult exec_c2c(cufftHandle p, complex* in, complex* out, int dir) {
    return cufftExecZ2Z(p, in, out, dir);
  }
};

}  // namespace gridsolve
