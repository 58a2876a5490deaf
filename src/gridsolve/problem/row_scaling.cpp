#include "gridsolve/problem/row_scaling.hpp"

#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve {

template <class T>
void divide_rows_by_diagonal(StencilOperator<T>& op) {
  if (op.uniform) {
    // One row for every node: a constant factor, unless the right-hand side varies.
    const T d = op.cp;
    op.cp = T(1);
    op.cw /= d, op.ce /= d, op.cs /= d, op.cn /= d, op.cb /= d, op.ct /= d;
    op.b_const /= d;
    if (!op.rhs.empty()) {
      const FieldView<T> r = op.rhs.view();
      for_each(op.device, op.active, [=] GRIDSOLVE_HD(int i, int j, int k) { r(i, j, k) /= d; });
    }
    return;
  }
  if (op.rhs.empty()) {
    // A constant b over rows of different diagonals becomes a field.
    op.rhs = Field<T>(op.grid, op.device);
    const FieldView<T> r = op.rhs.view();
    const T b = op.b_const;
    for_each(op.device, op.active, [=] GRIDSOLVE_HD(int i, int j, int k) { r(i, j, k) = b; });
  }
  const bool three = op.grid.dims == 3;
  const StencilView<T> a = op.view();  // for is_free, read before the arrays change
  const FieldView<T> ap = op.ap.view(), aw = op.aw.view(), ae = op.ae.view(), as = op.as.view(),
                     an = op.an.view(), r = op.rhs.view();
  const FieldView<T> ab = three ? op.ab.view() : FieldView<T>{},
                     at = three ? op.at.view() : FieldView<T>{};
  for_each(op.device, op.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
    if (!a.is_free(i, j, k)) return;
    const T d = ap(i, j, k);
    aw(i, j, k) /= d, ae(i, j, k) /= d, as(i, j, k) /= d, an(i, j, k) /= d;
    if (three) ab(i, j, k) /= d, at(i, j, k) /= d;
    r(i, j, k) /= d;
    ap(i, j, k) = T(1);
  });
}

template void divide_rows_by_diagonal<float>(StencilOperator<float>&);
template void divide_rows_by_diagonal<double>(StencilOperator<double>&);

}  // namespace gridsolve
