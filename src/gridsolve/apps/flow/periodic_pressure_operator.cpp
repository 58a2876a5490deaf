// The wrapped pressure stencil of periodic flow cases: apply, residuals and norms over
// the free cells, every loop a for_each / reduce body of the exec layer.
#include "gridsolve/apps/flow/periodic_pressure_operator.hpp"

#include <cmath>

#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve::flow {

namespace {

// The stencil with neighbour indices wrapped on periodic axes.
template <class T>
struct WrappedStencil {
  StencilView<T> a;
  int n[3] = {1, 1, 1};
  bool periodic[3] = {false, false, false};

  GRIDSOLVE_HD int wrap(int axis, int i) const {
    if (!periodic[axis]) return i;
    return i < 0 ? i + n[axis] : (i >= n[axis] ? i - n[axis] : i);
  }
  template <class U>
  GRIDSOLVE_HD T neighbours(const FieldView<U>& x, int i, int j, int k) const {
    T s = a.coefficient(0, i, j, k) * x(wrap(0, i - 1), j, k) +
          a.coefficient(1, i, j, k) * x(wrap(0, i + 1), j, k) +
          a.coefficient(2, i, j, k) * x(i, wrap(1, j - 1), k) +
          a.coefficient(3, i, j, k) * x(i, wrap(1, j + 1), k);
    if (a.dims == 3)
      s += a.coefficient(4, i, j, k) * x(i, j, wrap(2, k - 1)) +
           a.coefficient(5, i, j, k) * x(i, j, wrap(2, k + 1));
    return s;
  }
  template <class U>
  GRIDSOLVE_HD T product(const FieldView<U>& x, int i, int j, int k) const {
    return a.diag(i, j, k) * x(i, j, k) - neighbours(x, i, j, k);
  }
};

template <class T>
WrappedStencil<T> wrapped(const StencilOperator<T>& op, const std::array<bool, 3>& periodic,
                          const Field<T>* b = nullptr) {
  WrappedStencil<T> w;
  w.a = op.view(b);
  for (int q = 0; q < 3; ++q) {
    w.n[q] = op.active.hi[q] - op.active.lo[q] + 1;
    w.periodic[q] = periodic[std::size_t(q)];
  }
  return w;
}

// ||b - A u|| (residual) or ||b|| over the free cells.
template <class T>
double free_norm(const StencilOperator<T>& op, const std::array<bool, 3>& periodic,
                 const Field<T>* b, const Field<T>& u, bool subtract) {
  const WrappedStencil<T> w = wrapped(op, periodic, b);
  const FieldView<const T> v = u.cview();
  const double sq = reduce<double>(
      op.device, op.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        if (!w.a.is_free(i, j, k)) return 0.0;
        const double r = double(w.a.b(i, j, k)) - (subtract ? double(w.product(v, i, j, k)) : 0.0);
        return r * r;
      },
      SumOp{}, 0.0);
  return std::sqrt(sq);
}

}  // namespace

template <class T>
PeriodicPressureOperator<T>::PeriodicPressureOperator(const StencilOperator<T>& op,
                                                      std::array<bool, 3> periodic)
    : op_(&op), periodic_(periodic) {}

template <class T>
OperatorShape PeriodicPressureOperator<T>::shape() const {
  return op_->shape();
}

template <class T>
void PeriodicPressureOperator<T>::apply(const Field<T>& x, Field<T>& y) const {
  const WrappedStencil<T> w = wrapped(*op_, periodic_);
  const FieldView<const T> xv = x.cview();
  const FieldView<T> yv = y.view();
  for_each(op_->device, op_->active, [=] GRIDSOLVE_HD(int i, int j, int k) {
    yv(i, j, k) = w.a.is_free(i, j, k) ? w.product(xv, i, j, k) : T(0);
  });
}

template <class T>
void PeriodicPressureOperator<T>::apply_dot(const Field<T>& x, Field<T>& y, double* dot) const {
  const WrappedStencil<T> w = wrapped(*op_, periodic_);
  const FieldView<const T> xv = x.cview();
  const FieldView<T> yv = y.view();
  reduce_into<double>(
      op_->device, op_->active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        if (!w.a.is_free(i, j, k)) {
          yv(i, j, k) = T(0);
          return 0.0;
        }
        const T ax = w.product(xv, i, j, k);
        yv(i, j, k) = ax;
        return double(ax) * double(xv(i, j, k));
      },
      SumOp{}, 0.0, dot);
}

template <class T>
void PeriodicPressureOperator<T>::diagonal(Field<T>& d) const {
  op_->diagonal(d);
}

template <class T>
void PeriodicPressureOperator<T>::residual(const Field<T>* b, const Field<T>& u,
                                           Field<T>& r) const {
  const WrappedStencil<T> w = wrapped(*op_, periodic_, b);
  const FieldView<const T> v = u.cview();
  const FieldView<T> out = r.view();
  for_each(op_->device, op_->active, [=] GRIDSOLVE_HD(int i, int j, int k) {
    out(i, j, k) = w.a.is_free(i, j, k) ? w.a.b(i, j, k) - w.product(v, i, j, k) : T(0);
  });
}

template <class T>
double PeriodicPressureOperator<T>::residual_norm(const Field<T>* b, const Field<T>& u) const {
  return free_norm(*op_, periodic_, b, u, true);
}

template <class T>
double PeriodicPressureOperator<T>::rhs_norm(const Field<T>* b, const Field<T>& u) const {
  // No known values: every neighbour is an unknown or a wall with no coupling.
  return free_norm(*op_, periodic_, b, u, false);
}

template <class T>
void PeriodicPressureOperator<T>::fix_constant(Field<T>& u) const {
  gridsolve::fix_constant(*op_, u);
}

template class PeriodicPressureOperator<double>;

}  // namespace gridsolve::flow
