// TransformPoisson: constant-coefficient Poisson on a box by real transforms in all but
// one axis and batched tridiagonal solves in the last (FFTW on the CPU, cuFFT on the GPU).
#pragma once
#include <array>
#include <memory>

#include "gridsolve/exec/memory.hpp"
#include "gridsolve/solve/fast_poisson/axis_transforms.hpp"
#include "gridsolve/solve/fast_poisson/periodic_spectral.hpp"
#include "gridsolve/transform/slab_transpose.hpp"

namespace gridsolve::fast_poisson {

// -div(k grad u) = f on a box, discretized like the finite-volume assembly: on the
// unknowns (see AxisKind for which nodes they are) the operator is
//   A = sum_a c_a (D_a (x) M_b (x) M_c),  c_a = k * prod_{b != a} h_b / h_a,
// with D_a the symmetric second difference and M_a the dual-cell weights of axis a.
struct TransformProblem {
  int dims = 2;
  std::array<int, 3> m{1, 1, 1};  // unknowns per axis
  std::array<double, 3> h{1, 1, 1};
  std::array<std::array<Side, 2>, 3> sides{};  // (low, high) per axis
  double k = 1;
};

// The axis solved by tridiagonal lines: the slowest one that is not periodic (-1: every
// axis periodic, all transformed). On several ranks (`on_ranks`) the slabs split it, and a
// box periodic on every axis takes its slowest axis as the line axis, solved by cyclic
// tridiagonal lines once the transpose has made them whole.
int line_axis_of(const TransformProblem& p, bool on_ranks = false);

template <class T>
class TransformPoisson {
 public:
  // Plans the transforms; throws Error for sizes or side pairs it cannot take. With a
  // split over several ranks, solve() takes this rank's slab of the unknowns (split along
  // line_axis_of(problem, true)) and every rank of the split calls it together.
  TransformPoisson(Device device, const TransformProblem& problem, SlabSplit split = {});
  ~TransformPoisson();
  TransformPoisson(const TransformPoisson&) = delete;
  TransformPoisson& operator=(const TransformPoisson&) = delete;

  // data: the right-hand side on the unknowns (x fastest, m[0] * m[1] * m[2] values, or
  // this rank's slab of them, Dirichlet data already folded in), on the device; it
  // becomes the solution.
  // Without any Dirichlet side the operator is singular: the part of b outside its
  // range (its mean) is dropped and the solution with zero weighted mean returned.
  void solve(T* data);

  // The axis solved by tridiagonal sweeps (-1: every axis transformed).
  int line_axis() const { return line_axis_; }
  bool singular() const { return singular_; }
  const char* backend() const { return transforms_ ? transforms_->backend() : "cufft"; }
  const TransformShape& shape() const { return shape_; }

 private:
  Device device_;
  TransformProblem problem_;
  SlabSplit split_;
  std::array<int, 3> n_{1, 1, 1};  // the whole problem's unknowns per axis
  TransformShape shape_;           // what this rank transforms (its slab on several)
  int line_axis_ = -1;
  bool singular_ = false;
  std::unique_ptr<AxisTransforms<T>> transforms_;
  // Every axis periodic on GPUs: the whole solve in complex spectra instead (on slabs on
  // several ranks).
  std::unique_ptr<PeriodicSpectral<T>> periodic_;
  // On several CPU ranks with a periodic line axis: the transform along its lines, made
  // whole by the transpose (the lines are diagonalized too instead of solved).
  std::unique_ptr<AxisTransforms<T>> line_transforms_;
  Buffer<T> scratch_;     // modified super-diagonals of the line solves
  Buffer<double> sigma_;  // per-line shift of the GPU line solve
  Buffer<T> lines_, send_, receive_;  // on several ranks: this rank's lines, the messages
};

}  // namespace gridsolve::fast_poisson
