// One Runge-Kutta stage's explicit rows of both velocity components at once, on a 2D uniform
// grid without obstacles with central convection: the lean rows (LeanMomentumRate's
// arithmetic) with u and v staged through shared memory, each read once per block with a
// one-face halo. The tuned kernel beside the generic lean rows; tests compare the two.
// CUDA builds only.
#pragma once
#if GRIDSOLVE_HAVE_CUDA
#include "gridsolve/core/box.hpp"
#include "gridsolve/core/field_view.hpp"

namespace gridsolve::flow {

struct CentralRates2d {
  FieldView<const double> u, v;        // the velocity (ghosts filled)
  FieldView<double> star[2], rate[2];  // u* and the rate of each component
  Box inner[2];                        // each component's lean faces
  double half_area[2] = {0, 0}, diffusion[2] = {0, 0}, inv_volume = 1;
  double gamma_dt = 0, rho_dt = 0;
};

// Asynchronous, on the exec layer's stream.
void central_rates_2d(const CentralRates2d& k);

}  // namespace gridsolve::flow
#endif
