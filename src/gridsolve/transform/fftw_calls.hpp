// FFTW's double and float interfaces under one name (guru plans, new-array execution), for
// the CPU transforms; plans are made under one lock, FFTW's planner not being thread safe.
#pragma once
#include <fftw3.h>

#include <cstddef>
#include <mutex>

namespace gridsolve {

inline std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

template <class T>
struct Fftw;

template <>
struct Fftw<double> {
  using plan = fftw_plan;
  using complex = fftw_complex;
  using dim = fftw_iodim64;
  static void* malloc(std::size_t b) { return fftw_malloc(b); }
  static void free(void* p) { fftw_free(p); }
  static plan r2c(int rank, const dim* d, int hr, const dim* h, double* in, complex* out,
                  unsigned extra = 0) {
    return fftw_plan_guru64_dft_r2c(rank, d, hr, h, in, out,
                                    FFTW_ESTIMATE | FFTW_PRESERVE_INPUT | extra);
  }
  static plan c2r(int rank, const dim* d, int hr, const dim* h, complex* in, double* out,
                  unsigned extra = 0) {
    return fftw_plan_guru64_dft_c2r(rank, d, hr, h, in, out,
                                    FFTW_ESTIMATE | FFTW_DESTROY_INPUT | extra);
  }
  static plan c2c(int rank, const dim* d, int hr, const dim* h, complex* in, complex* out,
                  int sign, unsigned extra = 0) {
    return fftw_plan_guru64_dft(rank, d, hr, h, in, out, sign,
                                FFTW_ESTIMATE | FFTW_PRESERVE_INPUT | extra);
  }
  static void exec_r2c(plan p, double* in, complex* out) { fftw_execute_dft_r2c(p, in, out); }
  static void exec_c2r(plan p, complex* in, double* out) { fftw_execute_dft_c2r(p, in, out); }
  static void exec_c2c(plan p, complex* in, complex* out) { fftw_execute_dft(p, in, out); }
  // Real-to-real transforms in place (the sine and cosine kinds, the halfcomplex pair).
  static plan r2r(int rank, const fftw_iodim* d, int hr, const fftw_iodim* h, double* p,
                  const fftw_r2r_kind* kind) {
    return fftw_plan_guru_r2r(rank, d, hr, h, p, p, kind, FFTW_ESTIMATE | FFTW_UNALIGNED);
  }
  static void exec_r2r(plan p, double* data) { fftw_execute_r2r(p, data, data); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};

template <>
struct Fftw<float> {
  using plan = fftwf_plan;
  using complex = fftwf_complex;
  using dim = fftwf_iodim64;
  static void* malloc(std::size_t b) { return fftwf_malloc(b); }
  static void free(void* p) { fftwf_free(p); }
  static plan r2c(int rank, const dim* d, int hr, const dim* h, float* in, complex* out,
                  unsigned extra = 0) {
    return fftwf_plan_guru64_dft_r2c(rank, d, hr, h, in, out,
                                     FFTW_ESTIMATE | FFTW_PRESERVE_INPUT | extra);
  }
  static plan c2r(int rank, const dim* d, int hr, const dim* h, complex* in, float* out,
                  unsigned extra = 0) {
    return fftwf_plan_guru64_dft_c2r(rank, d, hr, h, in, out,
                                     FFTW_ESTIMATE | FFTW_DESTROY_INPUT | extra);
  }
  static plan c2c(int rank, const dim* d, int hr, const dim* h, complex* in, complex* out,
                  int sign, unsigned extra = 0) {
    return fftwf_plan_guru64_dft(rank, d, hr, h, in, out, sign,
                                 FFTW_ESTIMATE | FFTW_PRESERVE_INPUT | extra);
  }
  static void exec_r2c(plan p, float* in, complex* out) { fftwf_execute_dft_r2c(p, in, out); }
  static void exec_c2r(plan p, complex* in, float* out) { fftwf_execute_dft_c2r(p, in, out); }
  static void exec_c2c(plan p, complex* in, complex* out) { fftwf_execute_dft(p, in, out); }
  static plan r2r(int rank, const fftw_iodim* d, int hr, const fftw_iodim* h, float* p,
                  const fftw_r2r_kind* kind) {
    return fftwf_plan_guru_r2r(rank, d, hr, h, p, p, kind, FFTW_ESTIMATE | FFTW_UNALIGNED);
  }
  static void exec_r2r(plan p, float* data) { fftwf_execute_r2r(p, data, data); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};

}  // namespace gridsolve
