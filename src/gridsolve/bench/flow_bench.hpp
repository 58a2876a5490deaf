// Flow benchmark: PISO step time per cell against the copy-bandwidth bound, the pressure
// solve's share, and the steady cavity's time to solution against icoFoam.
#pragma once
#include <string>
#include <vector>

#include "gridsolve/apps/flow/flow_case.hpp"
#include "gridsolve/bench/copy_bandwidth.hpp"
#include "gridsolve/exec/device.hpp"

namespace gridsolve {

struct FlowStepTiming {
  int n = 0;                       // cells per side (of each unit cube)
  double cells = 0;                // in all
  double ms_per_step = 0;          // median over the timed steps
  double ns_per_cell = 0;          // per cell per step
  double pressure_share = 0;       // of the step time
  double pressure_iterations = 0;  // per step (two correctors)
  double predictor_share = 0;      // of the step time: the momentum predictors' sweeps
  double sweeps_per_predictor = 0;  // red-black sweeps a component's predictor took
  double bound_ms = 0;             // the copy-bandwidth bound of one step
  std::string traffic;             // what the bound counts
};

struct SteadyCavityTiming {
  int n = 0;
  double re = 0;
  double seconds = 0;
  long long iterations = 0;
  bool converged = false;
  double ghia_max = 0, ghia_mean = 0;
};

struct TaylorGreenTiming {
  int n = 0;
  std::string scheme;      // "projection + rk3 (fft)", "piso + bdf2 (mg)"
  long long steps = 0;     // to t = 2
  double seconds = 0;      // wall time of every step to t = 2 (the first one's setup included)
  double ms_per_step = 0;  // the steps after the first, in one stretch without waits
  double ns_per_cell = 0;
  double error = 0;  // max |u - exact|, |v - exact| over the faces at t = 2
  // |A - exp(-2 nu t)|: A the amplitude of the vortex's shape that fits u and v best (least
  // squares over the faces), what the vortex's decay rate makes of the run
  double amplitude_error = 0;
};

// The Taylor-Green vortex on the periodic box [0, 2 pi]^2, nu 0.01, fp64, to t = 2 at CFL
// 0.5 (and the diffusion limit of the explicit stages), by the projection scheme (central
// convection, the pressure by transforms) or by PISO + BDF2 (tvd, multigrid, 1e-8): the
// case of examples/flow/taylor_green_periodic.toml.
TaylorGreenTiming time_taylor_green(Device d, int n, flow::Coupling coupling);

// The flow benchmarks' case: the Re 1000 cavity stepped by PISO, n cells per side in
// `dims` dimensions; `wide` > 1 puts that many unit cubes side by side along x (n wide
// cells each: the weak-scaling mesh of `wide` ranks that each keep n^dims cells).
flow::FlowCase piso_cavity(int n, int dims = 2, int wide = 1);
// The Taylor-Green vortices on the periodic box [0, 2 pi]^dims, n cells per side, by the
// projection scheme with the transform pressure (nu 0.01, central convection); `tall` > 1
// stacks that many boxes along the slowest axis (the slabs the pressure splits into: the
// weak-scaling mesh of `tall` ranks that each keep n^dims cells).
flow::FlowCase taylor_green_box(int n, int dims = 2, int tall = 1);
// Steps of the case (PISO, or the projection scheme from the Taylor-Green vortices at CFL
// 0.5): warm-up, then `steps` timed steps (the median). Under mpirun the solver splits
// over the ranks and the slowest rank's time counts, unless `whole` (this rank alone).
FlowStepTiming time_flow_step(Device d, const flow::FlowCase& c, int steps, double copy_bytes_per_s,
                              bool whole = false);
// SIMPLEC on the steady cavity at n^2 to the cavity's default tolerance.
SteadyCavityTiming time_steady_cavity(Device d, double re, int n);

}  // namespace gridsolve
