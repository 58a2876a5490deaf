// Runs a `gridsolve micromag` configuration: stages (relax, minimize, run), progress,
// table.csv, OVF 2.0 snapshots, HDF5 + XDMF fields, PNG pictures and summary.json.
#pragma once
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "gridsolve/apps/micromag/micromag_config.hpp"
#include "gridsolve/apps/micromag/micromag_outputs.hpp"

namespace gridsolve::micromag {

// What a run leaves in memory when asked (the Python module's micromag.run): the table's
// rows, the summary's JSON, the final magnetization over the whole mesh (x fastest), and
// the snapshots the run would write as files (m at each stage's end, m_stage1_relax, ...;
// every output.snapshot_interval of run stages, m000000, ...), in the order taken.
struct MicromagRecord {
  std::vector<TableRow> rows;
  std::string summary;
  std::array<std::vector<double>, 3> m;
  std::vector<std::pair<std::string, std::array<std::vector<double>, 3>>> snapshots;
};

struct RunOverrides {
  std::string device, precision, out;
  bool quiet = false;
  bool files = true;                  // false: no result file at all (a record instead)
  MicromagRecord* record = nullptr;   // filled at the end when given
  std::function<void()> each_step;    // called after every step (may throw to stop the run)
};

// Returns the exit code: 0 done, 3 a relax or minimize stage did not converge.
int run_micromag(MicromagConfig config, const RunOverrides& overrides);

// The padded-FFT mode `auto` picks: zero-skipping for large single-layer meshes on the GPU
// and for every mesh on the CPU, whole padded transforms otherwise (fewer cuFFT calls).
demag::FftMode choose_fft_mode(const std::string& name, Device d, const Mesh& mesh);

}  // namespace gridsolve::micromag
