// Preconditioner<T>: z = M^-1 r for Krylov methods; zero wherever there is no unknown.
#pragma once
#include <string>

#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/linear_operator.hpp"

namespace gridsolve {

template <class T>
class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  virtual void apply(const Field<T>& r, Field<T>& z) = 0;
  virtual std::string name() const = 0;
};

// M = diag(A), from the operator's diagonal, taken once.
template <class T>
class JacobiPreconditioner final : public Preconditioner<T> {
 public:
  explicit JacobiPreconditioner(const LinearOperator<T>& op);
  void apply(const Field<T>& r, Field<T>& z) override;
  std::string name() const override { return "jacobi"; }

 private:
  OperatorShape shape_;
  Field<T> diagonal_;
};

}  // namespace gridsolve
