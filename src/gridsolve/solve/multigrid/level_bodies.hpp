// The loop bodies of a multigrid level's own work (its residual and its Gauss-Seidel
// update): launched over a level by multigrid.cpp, and run level after level inside one
// block by block_cycle.cpp.
#pragma once
#include "gridsolve/core/field_view.hpp"
#include "gridsolve/core/hd.hpp"
#include "gridsolve/problem/stencil_view.hpp"

namespace gridsolve::multigrid {

// The bodies of the loops that take most of a cycle are functors: nvcc's extended lambdas
// reach the host through a function pointer the host compiler cannot inline
// (transfer_bodies.hpp says more).
template <class T>
struct ResidualBody {
  // At most 64 registers (the general row took 72, three blocks an SM: half the copy
  // bandwidth at 4096^2 on an H200).
  static constexpr int min_blocks = 4;
  StencilView<T> a;
  FieldView<const T> v;
  FieldView<T> out;
  GRIDSOLVE_HD void operator()(int i, int j, int k) const {
    const typename StencilView<T>::Row r = a.row(i, j, k);
    out(i, j, k) = r.free ? a.residual(r, v, i, j, k) : T(0);
  }
};

// Constant coefficients, no mask: StencilView::uniform_residual.
template <class T, bool Three>
struct UniformResidualBody {
  StencilView<T> a;
  FieldView<const T> v;
  FieldView<T> out;
  GRIDSOLVE_HD void operator()(int i, int j, int k) const {
    out(i, j, k) = a.template uniform_residual<Three>(v, i, j, k);
  }
};

// Constant coefficients, no mask: the Gauss-Seidel update without per-node tests (it runs
// most of a cycle's time on the finest level).
template <class T>
struct UniformGsUpdate {
  FieldView<const T> rhs;
  T inv, cx, cy, cz, c0;
  bool has_rhs, three;
  struct Row {
    T scaled_b;
  };
  GRIDSOLVE_HD Row row(int i, int j, int k) const { return Row{has_rhs ? rhs(i, j, k) * inv : c0}; }
  GRIDSOLVE_HD T operator()(const Row& r, const FieldView<const T>& v, int i, int j, int k) const {
    T s = r.scaled_b + cx * (v(i - 1, j, k) + v(i + 1, j, k)) +
          cy * (v(i, j - 1, k) + v(i, j + 1, k));
    if (three) s += cz * (v(i, j, k - 1) + v(i, j, k + 1));
    return s;
  }
};

template <class T>
struct GsUpdate {
  StencilView<T> a;
  using Row = typename StencilView<T>::Row;
  GRIDSOLVE_HD Row row(int i, int j, int k) const { return a.row(i, j, k); }
  GRIDSOLVE_HD T operator()(const Row& r, const FieldView<const T>& v, int i, int j, int k) const {
    if (!r.free) return v(i, j, k);
    return (r.b + a.neighbours(r, v, i, j, k)) / r.diag;
  }
};

// The constant rows' update of a uniform level without a mask.
template <class T>
GRIDSOLVE_HD UniformGsUpdate<T> uniform_gs_update(const StencilView<T>& a) {
  const T inv = T(1) / a.cp;
  return UniformGsUpdate<T>{a.rhs,           inv,         a.cw * inv, a.cs * inv, a.cb * inv,
                            a.b_const * inv, bool(a.rhs), a.dims == 3};
}

// Calls f with the level's Gauss-Seidel update.
template <class T, class F>
void with_gs_update(const StencilView<T>& a, F&& f) {
  if (a.uniform && !a.mask) {
    f(uniform_gs_update(a));
    return;
  }
  f(GsUpdate<T>{a});
}

}  // namespace gridsolve::multigrid
