// Preconditioner<T>: z = M^-1 r for Krylov methods; zero wherever u is not an unknown.
#pragma once
#include <string>

#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/stencil_operator.hpp"

namespace gridsolve {

template <class T>
class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  virtual void apply(const Field<T>& r, Field<T>& z) = 0;
  virtual std::string name() const = 0;
};

// M = diag(A).
template <class T>
class JacobiPreconditioner final : public Preconditioner<T> {
 public:
  explicit JacobiPreconditioner(const StencilOperator<T>& op) : op_(op) {}
  void apply(const Field<T>& r, Field<T>& z) override;
  std::string name() const override { return "jacobi"; }

 private:
  const StencilOperator<T>& op_;
};

}  // namespace gridsolve
