// AxisTransforms: the real transforms along chosen axes of a dense 3D array, by backend.
#pragma once
#include <array>
#include <memory>

#include "gridsolve/exec/device.hpp"
#include "gridsolve/solve/fast_poisson/transform_kinds.hpp"

namespace gridsolve::fast_poisson {

// Array layout: x fastest, m[0] * m[1] * m[2] values, unpadded. Along every axis with
// transformed[a] set, forward() applies the axis kind's forward transform and
// backward() its backward one, both unnormalized and in place (FFTW's r2r
// definitions: RODFT00, REDFT00, REDFT01/10, RODFT01/10, R2HC/HC2R).
template <class T>
class AxisTransforms {
 public:
  virtual ~AxisTransforms() = default;
  virtual void forward(T* data) = 0;
  virtual void backward(T* data) = 0;
  virtual const char* backend() const = 0;
};

struct TransformShape {
  std::array<int, 3> m{1, 1, 1};
  std::array<AxisKind, 3> kind{AxisKind::dd, AxisKind::dd, AxisKind::dd};
  std::array<bool, 3> transformed{false, false, false};
};

template <class T>
std::unique_ptr<AxisTransforms<T>> make_fftw_transforms(const TransformShape& shape);
#if GRIDSOLVE_HAVE_CUDA
template <class T>
std::unique_ptr<AxisTransforms<T>> make_cufft_transforms(const TransformShape& shape);
#endif

}  // namespace gridsolve::fast_poisson
