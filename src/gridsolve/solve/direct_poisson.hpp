// Direct Poisson solvers behind the Solver interface: buneman (block cyclic reduction)
// and fft (transforms plus tridiagonal lines), for constant k on a full rectangle.
#pragma once
#include <memory>
#include <string>

#include "gridsolve/problem/stencil_operator.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

template <class T>
class DirectPoisson final : public Solver<T> {
 public:
  enum class Kind { buneman, fft };
  explicit DirectPoisson(Kind kind);
  ~DirectPoisson() override;
  std::string name() const override { return kind_ == Kind::buneman ? "buneman" : "fft"; }
  // fft splits over ranks into slabs along slab_axis (the transforms stay local; the
  // line solves get their modes by one all-to-all each way); buneman does not split.
  bool runs_on_ranks() const override { return kind_ == Kind::fft; }
  // Builds the transform plans or the reduction's factors (kept while the problem's
  // shape holds). Throws Error when the problem does not qualify (variable k, masks,
  // Robin sides; buneman: Neumann sides, 3D, or no axis with 2^k - 1 interior nodes).
  void setup(const LinearOperator<T>& op) override;

  // One direct solve; the report's residual is measured afterwards.
  SolveReport run(const Field<T>* b, Field<T>& u, const SolveOptions& options) override;

 private:
  struct Cache;
  Kind kind_;
  std::unique_ptr<Cache> cache_;
};

// The axis fft's slabs split on several ranks: the axis of its tridiagonal lines, the
// slowest one without periodic sides (every side periodic: the slowest axis, whose lines
// are transformed once the transpose has made them whole).
template <class T>
int slab_axis(const StencilOperator<T>& op);

}  // namespace gridsolve
