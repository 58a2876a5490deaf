// The demag evaluation on ranks beside one rank, and its transposes beside the link.
#include "gridsolve/bench/demag_ranks_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "gridsolve/bench/copy_bandwidth.hpp"
#include "gridsolve/bench/host_timing.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device_link.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/transform/demag_convolution.hpp"
#include "gridsolve/transform/demag_on_ranks.hpp"

namespace gridsolve {

namespace {

using T = float;  // the precision micromagnetic runs use

// Three components of `cells` random values in [-1, 1) on device d (never all zero).
struct Vectors {
  Buffer<T> c[3];
  Vectors(Device d, std::int64_t cells, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<T> v(static_cast<std::size_t>(cells));
    for (Buffer<T>& b : c) {
      for (T& x : v) x = T(u(rng));
      b = Buffer<T>(d, v.size());
      copy_bytes(b.data(), d, v.data(), Device::cpu, v.size() * sizeof(T));
    }
  }
  const T* const* in() {
    for (int k = 0; k < 3; ++k) in_[k] = c[k].data();
    return in_;
  }
  T* const* out() {
    for (int k = 0; k < 3; ++k) out_[k] = c[k].data();
    return out_;
  }
  const T* in_[3];
  T* out_[3];
};

// Median ms of f, on every rank together (the slowest rank's) or on this one alone.
template <class F>
double timed_ms(Device d, int repeats, bool all, F&& f) {
  return bench::ranks_median_ms(repeats, d, all, f, [&] { synchronize(d); });
}

const std::array<double, 3> cell{4e-9, 4e-9, 4e-9};

// Rank 0 alone with the one-process convolution the micromag command would pick; every
// rank learns the time.
double one_rank_ms(Device d, std::array<int, 3> mesh, int repeats, demag::FftMode mode) {
  const Communicator& comm = Communicator::world();
  double ms = 0;
  if (comm.is_root()) {
    demag::DemagConvolution<T> conv(d, mesh, cell, mode);
    const std::int64_t cells = std::int64_t(mesh[0]) * mesh[1] * mesh[2];
    Vectors m(d, cells, 11), h(d, cells, 12);
    ms = timed_ms(d, repeats, false, [&] { conv.apply(m.in(), h.out()); });
  }
  return comm.max(ms);
}

DemagRanksRow measure(Device d, const std::string& kind, std::array<int, 3> mesh,
                      std::array<int, 3> one_mesh, int repeats, demag::FftMode mode,
                      double link_gbs) {
  const Communicator& comm = Communicator::world();
  DemagRanksRow row;
  row.kind = kind;
  row.ranks = comm.size();
  row.mesh = mesh;
  row.one_rank_mesh = one_mesh;
  {
    demag::DemagOnRanks<T> conv(d, mesh, cell);
    const std::array<int, 3> mine = conv.cells();
    const std::int64_t cells = std::int64_t(mine[0]) * mine[1] * mine[2];
    Vectors m(d, cells, 21 + unsigned(comm.rank())), h(d, cells, 31);
    row.ms = timed_ms(d, repeats, true, [&] { conv.apply(m.in(), h.out()); });
    conv.profile(true);
    const int profiled = std::max(repeats, 3);
    for (int r = 0; r < profiled; ++r) conv.apply(m.in(), h.out());
    row.transpose_ms = comm.max(1e3 * conv.transpose_seconds() / profiled);
    row.transpose_bytes = comm.max(double(conv.transpose_bytes()));
  }
  row.link_ms = link_gbs > 0 ? row.transpose_bytes / (link_gbs * 1e6) : 0;
  row.one_rank_ms = one_rank_ms(d, one_mesh, repeats, mode);
  const double ratio = double(mesh[0]) * mesh[1] * mesh[2] /
                       (double(one_mesh[0]) * one_mesh[1] * one_mesh[2]);
  row.speedup = row.one_rank_ms * ratio / row.ms;
  row.efficiency = row.speedup / comm.size();
  return row;
}

}  // namespace

std::array<int, 3> weak_mesh(std::array<int, 3> mesh, int ranks) {
  mesh[mesh[2] == 1 ? 0 : 2] *= ranks;
  return mesh;
}

DemagRanksReport run_demag_ranks_bench(Device d, std::array<int, 3> mesh, int repeats) {
  const Communicator& comm = Communicator::world();
  DemagRanksReport report;
  report.ranks = comm.size();
  report.device = to_string(d);
  if (d == Device::cuda && !cuda_devices().empty())
    report.device = cuda_devices()[std::size_t(std::max(current_gpu(), 0))].name;
  report.link = d == Device::cuda ? DeviceLink::world().describe() : "MPI";
  report.link_gbs = link_bandwidth(d);
  // The mode the micromag command picks for these meshes (films: the fused column pass on
  // the GPU, which falls back to zero-skipping where it does not apply).
  const demag::FftMode mode = d == Device::cpu ? demag::FftMode::skip_zeros
                              : mesh[2] == 1   ? demag::FftMode::fused
                                               : demag::FftMode::plain;
  report.one_rank_mode = mode == demag::FftMode::fused        ? "fused column pass"
                         : mode == demag::FftMode::skip_zeros ? "zero-skipping"
                                                              : "plain transforms";
  report.rows.push_back(measure(d, "strong", mesh, mesh, repeats, mode, report.link_gbs));
  // Weak: each rank keeps the given mesh's cells.
  report.rows.push_back(
      measure(d, "weak", weak_mesh(mesh, comm.size()), mesh, repeats, mode, report.link_gbs));
  return report;
}

}  // namespace gridsolve
