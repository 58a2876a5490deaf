// The FFT back ends of the demag convolution (FFTW on the CPU, cuFFT on the GPU): they own
// the padded buffers and run the forward and inverse transforms of the three components.
#pragma once
#include <memory>

#include "gridsolve/exec/device.hpp"
#include "gridsolve/transform/demag_layout.hpp"

namespace gridsolve::demag {

template <class T>
class DemagFft {
 public:
  virtual ~DemagFft() = default;
  // input(c) -> spectrum(c) for c = 0, 1, 2.
  virtual void forward() = 0;
  // spectrum(c) -> output(c); the spectrum is destroyed.
  virtual void inverse() = 0;
  // Padded real buffers (zeros outside the cells stay zero in the input) and the
  // spectrum as interleaved complex values; memory of the back end's device.
  virtual T* input(int c) const = 0;
  virtual T* output(int c) const = 0;
  virtual T* spectrum(int c) const = 0;
  // The whole convolution input -> output with the tensor's reduced spectrum `kernel`
  // (demag_convolution.hpp), where this back end fuses the product into its transforms;
  // false (nothing done) where it does not.
  virtual bool convolve_fused(const T* kernel) {
    (void)kernel;
    return false;
  }
};

template <class T>
std::unique_ptr<DemagFft<T>> make_fftw_demag_fft(const Layout& layout);
template <class T>
std::unique_ptr<DemagFft<T>> make_cufft_demag_fft(const Layout& layout);

}  // namespace gridsolve::demag
