// Buneman's stable block cyclic reduction for the 2D five-point Poisson operator with
// Dirichlet sides; every block inverse is a sum of batched tridiagonal solves.
#pragma once
#include <cstdint>
#include <vector>

#include "gridsolve/exec/memory.hpp"

namespace gridsolve::buneman {

// Solves, on an N x Q grid of unknowns (N rows of Q, row j holding unknowns j*Q .. j*Q+Q-1),
//   cp u_P - cw (u_W + u_E) - cs (u_S + u_N) = b_P
// with zero values beyond the grid (Dirichlet data already folded into b). Rows are
// reduced, so N must be 2^k - 1; Q is any size. Work O(N Q log N), memory 3 N Q + the
// factors of the shifted tridiagonal blocks (N Q pairs).
template <class T>
class BlockCyclicReduction {
 public:
  BlockCyclicReduction(Device device, int rows, int cols, double cp, double cw, double cs);
  // data (N * Q values on the device): b in, u out.
  void solve(T* data);
  static bool rows_allowed(int n);  // n = 2^k - 1

 private:
  Device device_;
  int n_, q_, levels_;
  double cp_, cw_, cs_;
  Buffer<T> p_, x_, cp_fac_, inv_fac_;
  std::vector<std::int64_t> level_offset_;
  std::vector<T> alpha_host_;
  Buffer<T> alpha_;
  Buffer<double> shift_;  // -2 cos(theta_{r,l}) per level and shift (0 at level 0)
  double diag_ = 0;       // diagonal of B after scaling
  std::vector<std::int64_t> alpha_offset_;
};

}  // namespace gridsolve::buneman
