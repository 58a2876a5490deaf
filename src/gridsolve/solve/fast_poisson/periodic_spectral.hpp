// PeriodicSpectral: the transform Poisson solve when every axis is periodic, on the GPU.
// One multi-dimensional real-to-complex cuFFT, a division by the operator's eigenvalues,
// and the inverse: three passes a solve, where the per-axis real transforms take a dozen.
#pragma once
#include <array>
#include <memory>

#include "gridsolve/transform/slab_transpose.hpp"

namespace gridsolve::fast_poisson {

template <class T>
class PeriodicSpectral {
 public:
  virtual ~PeriodicSpectral() = default;
  // data: m[0] * m[1] * m[2] values on the device (x fastest), the right-hand side; it
  // becomes the solution of sum_a c_a D_a u = b with zero mean (the mean of b dropped).
  virtual void solve(T* data) = 0;
};

#if GRIDSOLVE_HAVE_CUDA
// D_a: the periodic second difference (rows -1 2 -1, wrapped) on m[a] values; c[a] > 0.
template <class T>
std::unique_ptr<PeriodicSpectral<T>> make_cufft_periodic_spectral(int dims, std::array<int, 3> m,
                                                                  std::array<double, 3> c);
// The same on several ranks: `m` the whole problem, split along its slowest axis by
// `split.t_start` (each rank's data its slab, x fastest). Each rank transforms its slab
// along the other axes (real to complex), one all-to-all hands each rank a range of kx
// with every plane, the complex transform along the slowest axis and the division run
// there, and the reverse. Every rank of the split calls solve() together.
template <class T>
std::unique_ptr<PeriodicSpectral<T>> make_cufft_periodic_spectral_on_slabs(int dims,
                                                                           std::array<int, 3> m,
                                                                           std::array<double, 3> c,
                                                                           const SlabSplit& split);
#endif

}  // namespace gridsolve::fast_poisson
