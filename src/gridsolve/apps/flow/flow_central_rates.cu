// The explicit rows of both components through shared memory: a block stages a 32 x 8 tile
// of u and v with a one-face halo, then each thread forms the rows of its u face and its v
// face from the tile, as LeanMomentumRate does (central convection: no far upwind face).
#include "gridsolve/apps/flow/flow_central_rates.hpp"

#include "gridsolve/apps/flow/flow_momentum_assembly.hpp"

#include "gridsolve/exec/cuda_launch.cuh"

namespace gridsolve::flow {

namespace {

constexpr int tile_x = 32, tile_y = 8;

// The row of one face: P the face's value, along its axis the neighbours (lo, hi) of the
// same component, across it (lo, hi) of the same component and the four faces of the other
// component around it (k00, k01 below/left, k10, k11 above/right, in the order the lean row
// reads K0 then K1 for side 0, then side 1). q_along is the face's own axis.
__device__ inline double central_row(double uP, double a_lo, double a_hi, double c_lo, double c_hi,
                                     double k0_lo, double k1_lo, double k0_hi, double k1_hi,
                                     int q_along, const CentralRates2d& p) {
  double sum_a = 0, netF = 0, b = 0, s = 0;
  for (int q = 0; q < 2; ++q) {
    const double half_area = p.half_area[q], D = p.diffusion[q];
    for (int side = 0; side < 2; ++side) {
      const double sg = side ? 1.0 : -1.0;
      double uJ, F;
      if (q == q_along) {
        uJ = side ? a_hi : a_lo;
        F = sg * (uP + uJ) * half_area;
      } else {
        uJ = side ? c_hi : c_lo;
        F = sg * ((side ? k0_hi : k0_lo) + (side ? k1_hi : k1_lo)) * half_area;
      }
      const double acoef = detail::link_coefficient(4, F, D);
      sum_a += acoef;
      netF += F;
      s += acoef * uJ;
      b -= F * detail::correction_toward(4, true, F > 0 ? uP : uJ, F > 0 ? uJ : uP, 0.0);
    }
  }
  return (b - (sum_a + netF) * uP + s) * p.inv_volume;
}

__global__ void __launch_bounds__(tile_x* tile_y)
    central_rates_kernel(CentralRates2d p, int i0, int j0, int i1, int j1) {
  __shared__ double su[tile_y + 2][tile_x + 2], sv[tile_y + 2][tile_x + 2];
  const int bi = i0 + int(blockIdx.x) * tile_x, bj = j0 + int(blockIdx.y) * tile_y;
  for (int t = int(threadIdx.y * tile_x + threadIdx.x); t < (tile_x + 2) * (tile_y + 2);
       t += tile_x * tile_y) {
    const int li = t % (tile_x + 2), lj = t / (tile_x + 2);
    const int gi = bi - 1 + li, gj = bj - 1 + lj;
    const bool inside = gi <= i1 + 1 && gj <= j1 + 1;  // the union box and its halo
    su[lj][li] = inside ? p.u(gi, gj, 0) : 0.0;
    sv[lj][li] = inside ? p.v(gi, gj, 0) : 0.0;
  }
  __syncthreads();
  const int tx = int(threadIdx.x) + 1, ty = int(threadIdx.y) + 1;
  const int i = bi + tx - 1, j = bj + ty - 1;
  if (p.inner[0].contains(i, j, 0)) {  // the u face (i, j): along x, v around it
    const double uP = su[ty][tx];
    const double rt =
        central_row(uP, su[ty][tx - 1], su[ty][tx + 1], su[ty - 1][tx], su[ty + 1][tx],
                    sv[ty][tx - 1], sv[ty][tx], sv[ty + 1][tx - 1], sv[ty + 1][tx], 0, p);
    const double old = p.rho_dt != 0 ? p.rho_dt * p.rate[0](i, j, 0) : 0.0;
    p.star[0](i, j, 0) = uP + p.gamma_dt * rt + old;
    p.rate[0](i, j, 0) = rt;
  }
  if (p.inner[1].contains(i, j, 0)) {  // the v face (i, j): along y, u around it
    const double vP = sv[ty][tx];
    const double rt =
        central_row(vP, sv[ty - 1][tx], sv[ty + 1][tx], sv[ty][tx - 1], sv[ty][tx + 1],
                    su[ty - 1][tx], su[ty][tx], su[ty - 1][tx + 1], su[ty][tx + 1], 1, p);
    const double old = p.rho_dt != 0 ? p.rho_dt * p.rate[1](i, j, 0) : 0.0;
    p.star[1](i, j, 0) = vP + p.gamma_dt * rt + old;
    p.rate[1](i, j, 0) = rt;
  }
}

}  // namespace

void central_rates_2d(const CentralRates2d& p) {
  const int i0 = std::min(p.inner[0].lo[0], p.inner[1].lo[0]);
  const int j0 = std::min(p.inner[0].lo[1], p.inner[1].lo[1]);
  const int i1 = std::max(p.inner[0].hi[0], p.inner[1].hi[0]);
  const int j1 = std::max(p.inner[0].hi[1], p.inner[1].hi[1]);
  if (i1 < i0 || j1 < j0) return;
  const dim3 grid(unsigned((i1 - i0 + tile_x) / tile_x), unsigned((j1 - j0 + tile_y) / tile_y));
  central_rates_kernel<<<grid, dim3(tile_x, tile_y), 0, cuda::exec_stream()>>>(p, i0, j0, i1, j1);
  cuda::check_launch("central rates");
}

}  // namespace gridsolve::flow
