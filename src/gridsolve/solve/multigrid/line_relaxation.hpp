// Zebra line Gauss-Seidel: the multigrid smoother for stretched cells. Where cells are much
// longer on one axis than on another, a node is coupled far more strongly along the short
// axis, and point relaxation leaves errors that are smooth along it but oscillate across
// it: full coarsening cannot represent them, and a V-cycle stalls (DFG 2D-2's pressure, up
// to 8.6 times longer than wide behind the cylinder, took 6 point-smoothed cycles a solve
// at a factor of 0.6-0.8 a cycle). Solving every line along the strong axis at once
// removes them: lines of one colour (the parity of their position across) are solved
// together, each as its tridiagonal system, the lines beside them held at their values.
#pragma once
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/stencil_operator.hpp"
#include "gridsolve/problem/stencil_view.hpp"

namespace gridsolve::multigrid {

// On the GPU a line is solved by one block, a node a thread: at most this many nodes.
constexpr int k_line_nodes = 1024;

// The axis whose couplings are the strongest over the level (the sum of each axis's
// coefficients over its free nodes: one reduction a level, made once at set-up), or -1
// where no axis can take line sweeps: a level split over ranks (its lines would cross
// them), lines periodic along their axis (cyclic systems) or, on the GPU, longer than
// k_line_nodes.
template <class T>
int line_axis(const StencilOperator<T>& op);

// Solves, at once, every line along `axis` whose position across it has the parity
// `colour` (the sum of its indices on the other axes): each free node's row with the nodes
// off the line at their current values. Fixed nodes keep theirs. The caller refreshes
// the periodic images and ghosts the rows read beforehand.
template <class T>
void line_sweep(const StencilView<T>& a, Field<T>& u, int axis, int colour, Device d);

}  // namespace gridsolve::multigrid
