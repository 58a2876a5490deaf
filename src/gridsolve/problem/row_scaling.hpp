// Dividing every free row of an operator by its diagonal: A u = b becomes D^-1 A u = D^-1 b.
#pragma once
#include "gridsolve/problem/stencil_operator.hpp"

namespace gridsolve {

// The solution and the iterates of Jacobi, Gauss-Seidel and SOR are unchanged (each
// update already divides by the diagonal); what changes is the residual they watch:
// ||D^-1 (b - A u)|| / ||D^-1 b||, the measure of a finite-difference code whose rows
// are written with a constant diagonal, where a finite-volume row carries its cell's
// size. The scaled operator is no longer symmetric, so CG and multigrid must not be
// given it. Fixed and outside nodes are left as they are.
template <class T>
void divide_rows_by_diagonal(StencilOperator<T>& op);

}  // namespace gridsolve
