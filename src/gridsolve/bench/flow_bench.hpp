// Flow benchmark: PISO step time per cell against the copy-bandwidth bound, the pressure
// solve's share, and the steady cavity's time to solution against icoFoam.
#pragma once
#include <string>
#include <vector>

#include "gridsolve/bench/copy_bandwidth.hpp"
#include "gridsolve/exec/device.hpp"

namespace gridsolve {

struct FlowStepTiming {
  int n = 0;                       // cells per side
  double ms_per_step = 0;          // median over the timed steps
  double ns_per_cell = 0;          // per cell per PISO step
  double pressure_share = 0;       // of the step time
  double pressure_iterations = 0;  // per step (two correctors)
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

// PISO steps of the Re 1000 cavity at n^2 cells: warm-up, then `steps` timed steps.
FlowStepTiming time_piso_step(Device d, int n, int steps, double copy_bytes_per_s);
// SIMPLEC on the steady cavity at n^2 to the cavity's default tolerance.
SteadyCavityTiming time_steady_cavity(Device d, double re, int n);

}  // namespace gridsolve
