// The demagnetizing tensor of cuboid cells (Newell, Williams & Dunlop 1993), in double.
#pragma once
#include <array>

namespace gridsolve::demag {

// The six distinct components of the symmetric 3 x 3 tensor, in this order.
enum Component { xx = 0, yy = 1, zz = 2, xy = 3, xz = 4, yz = 5 };

using Tensor = std::array<double, 6>;

// Newell's f and g: the functions whose second differences give the diagonal (f) and
// off-diagonal (g) components of the cell-averaged tensor. Exposed for the tests.
double newell_f(double x, double y, double z);
double newell_g(double x, double y, double z);

// N(r) between two cuboid cells of size `cell` whose centres are `offset` apart
// (target minus source), with the sign convention H = -N M: the self term (offset 0)
// has a positive trace of exactly 1. Evaluated by Newell's closed form near the source,
// by Gauss quadrature of the cell-averaged point-dipole kernel at mid distances (where
// the closed form loses digits to cancellation) and by the point dipole far away.
Tensor tensor(std::array<double, 3> offset, std::array<double, 3> cell);

// The three ways `tensor` can evaluate, for the tests to compare.
Tensor tensor_newell(std::array<double, 3> offset, std::array<double, 3> cell);
// Gauss-Legendre quadrature with `points` nodes on each half of each axis of the
// tent-weighted dipole kernel (the cell-pair average); valid when the cells do not touch.
Tensor tensor_quadrature(std::array<double, 3> offset, std::array<double, 3> cell, int points);
Tensor tensor_dipole(std::array<double, 3> offset, std::array<double, 3> cell);

// Distances (in units of the largest cell side) at which `tensor` switches from the
// closed form to quadrature, and from quadrature to the point dipole.
constexpr double newell_range = 12.0;
constexpr double quadrature_range = 160.0;

}  // namespace gridsolve::demag
