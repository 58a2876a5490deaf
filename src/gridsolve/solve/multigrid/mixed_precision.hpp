// A single-precision multigrid cycle preconditioning a double-precision Krylov method:
// the cycle only has to reduce the error by a constant factor, which float does as well
// as double, at half the memory traffic; the outer iteration keeps double accuracy.
#pragma once
#include "gridsolve/solve/multigrid/multigrid.hpp"
#include "gridsolve/solve/preconditioner.hpp"

namespace gridsolve {

// The operator's coefficients rounded to T (arrays converted on the device).
template <class T, class S>
StencilOperator<T> convert_operator(const StencilOperator<S>& op);

class MixedPrecisionMultigrid final : public Preconditioner<double> {
 public:
  MixedPrecisionMultigrid(const StencilOperator<double>& op, const MultigridOptions& o);
  void apply(const Field<double>& r, Field<double>& z) override;
  // New coefficients on the same structure: converted again, the hierarchy refreshed in
  // place. False (nothing done) when the structure differs.
  bool update(const StencilOperator<double>& op);
  std::string name() const override {
    return "single-precision multigrid " + hierarchy_.describe();
  }

 private:
  StencilOperator<float> op_;
  MultigridHierarchy<float> hierarchy_;
  Field<float> r_, z_;
};

}  // namespace gridsolve
