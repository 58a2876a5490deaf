// LineFft: batched one-dimensional transforms along one axis of a dense array, planned once
// (FFTW on the CPU, cuFFT on the GPU), in float or double: the building block of transforms
// split over ranks, whose local passes run along one axis at a time.
#pragma once
#include <cstdint>
#include <memory>

#include "gridsolve/exec/device.hpp"

namespace gridsolve {

enum class LineKind {
  r2c,  // real -> the length / 2 + 1 non-negative frequencies (exponent sign -1)
  c2r,  // the reverse (sign +1), unnormalized
  c2c   // complex -> complex, either sign, unnormalized
};

// `count` transforms of `length` points. Point p of transform b sits at element
// b * distance + p * stride of the input (complex values, or real values on the real side
// of r2c), and of the output at b * out_distance + p * out_stride. The plan is in place
// when the caller passes the same array in and out (as it must on every run).
struct LineShape {
  LineKind kind = LineKind::c2c;
  int length = 1;
  std::int64_t count = 1;
  std::int64_t stride = 1, distance = 1;
  std::int64_t out_stride = 1, out_distance = 1;
};

template <class T>
class LineFft {
 public:
  virtual ~LineFft() = default;
  // Interleaved complex values (re, im) where the shape says complex. `sign` only for
  // c2c: -1 forward, +1 inverse. Queued on the device's stream, not waited for.
  virtual void run(T* in, T* out, int sign = -1) = 0;
};

template <class T>
std::unique_ptr<LineFft<T>> make_line_fft(Device d, const LineShape& shape);

// The GPU's, in CUDA builds (make_line_fft picks by device).
template <class T>
std::unique_ptr<LineFft<T>> make_line_fft_cuda(const LineShape& shape);

}  // namespace gridsolve
