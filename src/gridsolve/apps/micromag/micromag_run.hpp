// Runs a `gridsolve micromag` configuration: stages (relax, minimize, run), progress,
// table.csv, OVF 2.0 snapshots, HDF5 + XDMF fields, PNG pictures and summary.json.
#pragma once
#include <string>

#include "gridsolve/apps/micromag/micromag_config.hpp"

namespace gridsolve::micromag {

struct RunOverrides {
  std::string device, precision, out;
  bool quiet = false;
};

// Returns the exit code: 0 done, 3 a relax or minimize stage did not converge.
int run_micromag(MicromagConfig config, const RunOverrides& overrides);

// The padded-FFT mode `auto` picks: zero-skipping for large single-layer meshes on the GPU
// and for every mesh on the CPU, whole padded transforms otherwise (fewer cuFFT calls).
demag::FftMode choose_fft_mode(const std::string& name, Device d, const Mesh& mesh);

}  // namespace gridsolve::micromag
