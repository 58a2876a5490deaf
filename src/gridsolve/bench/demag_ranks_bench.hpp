// gridsolve bench micromag under mpirun: the demag evaluation split over the run's ranks
// (DemagOnRanks, float) on the given mesh (strong scaling) and on the mesh grown along the
// slab axis with the rank count (weak scaling), each beside rank 0 alone with the
// one-process convolution the micromag command runs; the transposes' time against the time
// the link bandwidth, measured in the same run, allows for the bytes they move.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "gridsolve/exec/device.hpp"

namespace gridsolve {

struct DemagRanksRow {
  std::string kind;  // strong, weak
  int ranks = 1;
  std::array<int, 3> mesh{};  // the whole mesh on the ranks
  std::array<int, 3> one_rank_mesh{};
  double ms = 0;           // one evaluation on the ranks (the slowest rank)
  double one_rank_ms = 0;  // rank 0 alone on one_rank_mesh
  double speedup = 0, efficiency = 0;
  double transpose_ms = 0;      // the transposes of one evaluation, timed alone
  double transpose_bytes = 0;   // sent by one rank (the most of any) per evaluation
  double link_ms = 0;           // those bytes at the measured link bandwidth
};

struct DemagRanksReport {
  int ranks = 1;
  std::string device, link, one_rank_mode;
  double link_gbs = 0;
  std::vector<DemagRanksRow> rows;
};

// The weak-scaling mesh of `ranks` ranks that each keep `mesh`'s cells: a single layer
// grows along x, so that its columns (along y) keep their length and the fused column
// pass its shape (columns of 8192 fit one block per multiprocessor and run slower per
// cell than those of 4096); a 3D box grows along its slab axis.
std::array<int, 3> weak_mesh(std::array<int, 3> mesh, int ranks);

// Every rank calls it; every rank gets the same report.
DemagRanksReport run_demag_ranks_bench(Device d, std::array<int, 3> mesh, int repeats);

}  // namespace gridsolve
