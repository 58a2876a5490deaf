// DemagConvolution: the demagnetizing field of a magnetization on a box of cuboid cells,
// by zero-padded FFT convolution with the Newell tensor; owns its plans and the tensor's
// transform, on the CPU (FFTW) or the GPU (cuFFT), in float or double.
#pragma once
#include <array>
#include <memory>

#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/transform/demag_fft.hpp"
#include "gridsolve/transform/demag_layout.hpp"
#include "gridsolve/transform/demag_tensor.hpp"

namespace gridsolve::demag {

template <class T>
class DemagConvolution {
 public:
  // `n` cells of size `cell` (metres, or any unit: the tensor is dimensionless).
  // `pbc`: periodic axes (not padded) and the images of the box summed into the tensor.
  DemagConvolution(Device d, std::array<int, 3> n, std::array<double, 3> cell,
                   FftMode mode = FftMode::skip_zeros, Periodicity pbc = {});
  ~DemagConvolution();
  DemagConvolution(const DemagConvolution&) = delete;
  DemagConvolution& operator=(const DemagConvolution&) = delete;

  // Where to write the magnetization M of each cell before convolve() (only cells; the
  // padding must stay untouched), and where the field H = -N * M is found after it.
  PaddedVector<T> input() const;
  PaddedVector<T> output() const;
  void convolve();

  // Convenience for tests and small jobs: dense component arrays (x fastest, on this
  // object's device) in, dense out.
  void apply(const T* const m[3], T* const h[3]);

  const Layout& layout() const { return layout_; }
  const Periodicity& periodicity() const { return pbc_; }
  // The most images per side a periodic axis may sum (the tensor costs (2 images + 1)
  // evaluations per offset and periodic axis).
  static constexpr int max_images = 100000;
  Device device() const { return device_; }
  // The tensor's transform, the six components each on (p2/2+1) x (p1/2+1) x hx.
  std::int64_t kernel_bytes() const { return std::int64_t(kernel_.size()) * sizeof(T); }

  // Convolves a random magnetization on a small box with these cells (and periodicity)
  // and returns the largest difference from the direct O(N^2) sum over the cells and their
  // images, relative to the largest field.
  static double check_against_direct_sum(Device d, std::array<int, 3> n, std::array<double, 3> cell,
                                         FftMode mode, Periodicity pbc = {});

 private:
  Device device_;
  Layout layout_;
  Periodicity pbc_;
  std::unique_ptr<DemagFft<T>> fft_;
  Buffer<T> kernel_;
};

// The reduced real spectrum of the tensor, in double: component c at
// ((c * (p2/2+1) + kz) * (p1/2+1) + ky) * hk + kx, scaled by -1 / (p0 p1 p2) so that
// the inverse transform of (kernel x spectrum of M) is H. With kx_start (ranks + 1
// offsets from 0 to hx, every rank of the run calling it together) each rank gets its
// range kx_start[rank] .. kx_start[rank + 1] - 1 (hk values, kx counted from its start)
// and evaluates and holds only its share; without, the whole (hk = hx) on this process
// (demag_tensor_spectrum.cpp).
std::vector<double> tensor_spectrum(const Layout& layout, std::array<double, 3> cell,
                                    const Periodicity& pbc = {},
                                    const std::vector<int>& kx_start = {});

// The tensor between cells `offset` cells apart (target minus source), summed over the
// images of the source along the periodic axes: offset + m n for m = -images .. images.
Tensor image_sum(std::array<int, 3> offset, std::array<int, 3> n, std::array<double, 3> cell,
                 const Periodicity& pbc);

// The self-checks' reference: a random magnetization m (fixed seed, every component in
// [-1, 1)) on an n box of at most 4096 cells, and its field h by the direct O(N^2) sum over
// the cells and their images, in double, x fastest.
struct DirectSumCheck {
  std::array<std::vector<double>, 3> m, h;
};
DirectSumCheck direct_sum_check(std::array<int, 3> n, std::array<double, 3> cell,
                                const Periodicity& pbc);

}  // namespace gridsolve::demag
