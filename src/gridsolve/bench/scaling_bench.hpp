// The scaling benchmark, run under mpirun once per rank (GPU) count: a Poisson solve of a
// fixed number of iterations on one grid split over the run's ranks (strong scaling) and on
// a grid grown with the rank count (weak scaling), each beside the same solve by rank 0
// alone in the same launch; the share of the time the ghost exchanges and all-reduces take,
// and the bytes moved against the link bandwidth measured in the same run.
#pragma once
#include <string>
#include <vector>

#include "gridsolve/exec/device.hpp"

namespace gridsolve {

struct ScalingBenchSettings {
  Device device = Device::cpu;
  int dims = 2;
  int n = 16383;          // strong scaling: nodes per side of the whole grid
  int n_per_rank = 8191;  // weak scaling: nodes per side of one rank's share
  std::string solver = "cg";
  int iterations = 100;  // per timed solve (the tolerance is out of reach, so all run)
  int repeats = 3;       // timed solves; the median counts
  // Throws Error naming the first setting out of range (run_scaling_bench calls it too).
  void validate() const;
};

struct ScalingRow {
  std::string kind;  // "strong" or "weak"
  int ranks = 1;
  std::string process_grid;
  std::string grid;   // nodes of the whole problem
  std::string kernel;
  double ms_per_iteration = 0;      // on the run's ranks (the slowest rank's clock)
  double one_rank_ms_per_iteration = 0;  // the baseline, rank 0 alone on its device
  double one_rank_unknowns_ratio = 1;    // weak: whole problem / the one-rank problem
  double speedup = 0;     // strong: baseline / ranks
  double efficiency = 0;  // strong: speedup / ranks; weak: baseline * ratio / ranks / time
  double exchange_ms_per_iteration = 0;    // ghost exchanges alone, as many as an iteration has
  double all_reduce_ms_per_iteration = 0;  // all-reduces alone, likewise
  double exchanges_per_iteration = 0;
  double all_reduces_per_iteration = 0;
  double bytes_per_iteration = 0;  // ghost bytes one rank sends (the most of any rank)
};

struct ScalingReport {
  int ranks = 1;
  std::string device;       // "cpu" or the GPU's name
  std::string link;         // how device buffers travel
  double link_gbs = 0;      // one way, per rank, large messages to the next rank
  double copy_gbs = 0;      // device-to-device copy (read + write), rank 0
  std::vector<ScalingRow> rows;
};

// Every rank calls it; every rank gets the same report.
ScalingReport run_scaling_bench(const ScalingBenchSettings& s);

}  // namespace gridsolve
