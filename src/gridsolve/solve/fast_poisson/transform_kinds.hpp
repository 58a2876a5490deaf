// Per-axis boundary pairs of the transform solver: unknowns, transforms, eigenvalues.
#pragma once
#include <array>
#include <cmath>
#include <string>

#include "gridsolve/core/hd.hpp"

namespace gridsolve::fast_poisson {

enum class Side { dirichlet, neumann, periodic };

// The boundary pair of one axis. On a nodal grid of n nodes the unknowns are:
//   dd: nodes 1..n-2   nd: nodes 0..n-2   dn: nodes 1..n-1   nn: nodes 0..n-1
//   pp: nodes 0..n-2 (node n-1 is node 0 again)
enum class AxisKind { dd, nd, dn, nn, pp };

AxisKind axis_kind(Side lo, Side hi);  // throws when only one side is periodic
std::string to_string(AxisKind k);

// The finite-volume operator of one axis on its m unknowns is D = M G, with G the
// ghost-mirror second difference (rows -1 2 -1; a Neumann end row 2 -2) and M the
// diagonal dual-cell weights (1/2 at a Neumann end node, else 1). G is diagonalized by
// a real transform pair (forward, backward) whose product is `norm` times identity.
// Eigenvalue of mode k (index in the forward transform's output), written as
// 4 sin^2(theta / 2) to keep small eigenvalues accurate.
GRIDSOLVE_HD inline double mode_eigenvalue(AxisKind kind, int m, int k) {
  const double pi = 3.14159265358979323846;
  double half = 0;  // theta / 2
  switch (kind) {
    case AxisKind::dd:
      half = pi * (k + 1) / (2.0 * (m + 1));
      break;
    case AxisKind::nn:
      half = pi * k / (2.0 * (m - 1));
      break;
    case AxisKind::nd:
    case AxisKind::dn:
      half = pi * (k + 0.5) / (2.0 * m);
      break;
    case AxisKind::pp: {
      const int f = k <= m / 2 ? k : m - k;  // halfcomplex: real parts, then imaginary
      half = pi * f / m;
      break;
    }
  }
  const double s = sin(half);
  return 4 * s * s;
}

inline double transform_norm(AxisKind kind, int m) {
  switch (kind) {
    case AxisKind::dd:
      return 2.0 * (m + 1);
    case AxisKind::nn:
      return 2.0 * (m - 1);
    case AxisKind::nd:
    case AxisKind::dn:
      return 2.0 * m;
    case AxisKind::pp:
      return m;
  }
  return 1;
}

// Dual-cell weight M_i of unknown i, and the diagonal of the symmetric second
// difference D_i (off-diagonals are -1; pp is circulant).
GRIDSOLVE_HD inline double cell_weight(AxisKind kind, int m, int i) {
  const bool low_neumann = (kind == AxisKind::nd || kind == AxisKind::nn) && i == 0;
  const bool high_neumann = (kind == AxisKind::dn || kind == AxisKind::nn) && i == m - 1;
  return (low_neumann ? 0.5 : 1.0) * (high_neumann ? 0.5 : 1.0);
}
GRIDSOLVE_HD inline double stiffness_diagonal(AxisKind kind, int m, int i) {
  const bool low_neumann = (kind == AxisKind::nd || kind == AxisKind::nn) && i == 0;
  const bool high_neumann = (kind == AxisKind::dn || kind == AxisKind::nn) && i == m - 1;
  return 2.0 - (low_neumann ? 1.0 : 0.0) - (high_neumann ? 1.0 : 0.0);
}

}  // namespace gridsolve::fast_poisson
