// The demagnetizing convolution on ranks: each rank's slab of H equals the one-process
// convolution of the whole magnetization (1e-12 in double, 1e-5 in float), on 1-4 ranks
// with uneven slabs, for single layers (slabs along y) and 3D boxes (slabs along z), with
// periodic axes; on each rank's GPU where there is one, where single layers of power-of-two
// padded columns take the fused column pass (pieces of columns as the ranks send them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/exec/peer_memory.hpp"
#include "gridsolve/transform/demag_convolution.hpp"
#include "gridsolve/transform/demag_on_ranks.hpp"

namespace gridsolve::demag {
namespace {

template <class T>
void expect_same_field(Device device, std::array<int, 3> n, std::array<double, 3> cell,
                       Periodicity pbc, double tolerance, bool fused = false,
                       PeerPath path = PeerPath::automatic) {
  const std::int64_t cells = std::int64_t(n[0]) * n[1] * n[2];
  // The same magnetization on every rank (one seed), no component zero anywhere.
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> m[3], h[3];
  for (int c = 0; c < 3; ++c) {
    m[c].resize(std::size_t(cells));
    for (T& v : m[c]) v = T(0.25 + u(rng));
    h[c].assign(std::size_t(cells), T(0));
  }
  DemagConvolution<T> whole(Device::cpu, n, cell, FftMode::skip_zeros, pbc);
  const T* mp[3] = {m[0].data(), m[1].data(), m[2].data()};
  T* hp[3] = {h[0].data(), h[1].data(), h[2].data()};
  whole.apply(mp, hp);

  DemagOnRanks<T> ranks(device, n, cell, pbc, path);
  EXPECT_EQ(ranks.fused(), fused);
  if (path == PeerPath::messages) {
    EXPECT_FALSE(ranks.direct());
  }
  const int t = ranks.axis(), first = ranks.first();
  const std::array<int, 3> mine = ranks.cells();
  const std::int64_t my_cells = std::int64_t(mine[0]) * mine[1] * mine[2];
  // This rank's slab of m, on the device, and its H back.
  auto index = [&](int i, int j, int k) { return (std::int64_t(k) * n[1] + j) * n[0] + i; };
  Buffer<T> mb[3], hb[3];
  T* mq[3];
  T* hq[3];
  for (int c = 0; c < 3; ++c) {
    std::vector<T> part;
    part.reserve(std::size_t(my_cells));
    for (int k = 0; k < mine[2]; ++k)
      for (int j = 0; j < mine[1]; ++j)
        for (int i = 0; i < mine[0]; ++i)
          part.push_back(m[c][std::size_t(t == 2 ? index(i, j, k + first) : index(i, j + first, k))]);
    mb[c] = Buffer<T>(device, std::size_t(my_cells));
    hb[c] = Buffer<T>(device, std::size_t(my_cells));
    copy_bytes(mb[c].data(), device, part.data(), Device::cpu, part.size() * sizeof(T));
    mq[c] = mb[c].data();
    hq[c] = hb[c].data();
  }
  ranks.apply(mq, hq);
  double worst = 0, largest = 0;
  for (int c = 0; c < 3; ++c) {
    std::vector<T> back(static_cast<std::size_t>(my_cells));
    copy_bytes(back.data(), Device::cpu, hq[c], device, back.size() * sizeof(T));
    std::int64_t q = 0;
    for (int k = 0; k < mine[2]; ++k)
      for (int j = 0; j < mine[1]; ++j)
        for (int i = 0; i < mine[0]; ++i, ++q) {
          const double want =
              double(h[c][std::size_t(t == 2 ? index(i, j, k + first) : index(i, j + first, k))]);
          worst = std::max(worst, std::abs(double(back[std::size_t(q)]) - want));
          largest = std::max(largest, std::abs(want));
        }
  }
  const Communicator& comm = Communicator::world();
  worst = comm.max(worst);
  largest = comm.max(largest);
  EXPECT_GT(largest, 0.05);
  EXPECT_LE(worst, tolerance * largest)
      << n[0] << "x" << n[1] << "x" << n[2] << " on " << comm.size() << " ranks, "
      << to_string(device) << (pbc.any() ? ", periodic" : "");
}

TEST(MpiDemag, SingleLayerSlabsAlongY) {
  expect_same_field<double>(Device::cpu, {24, 19, 1}, {2e-9, 3e-9, 1e-9}, {}, 1e-12);
  expect_same_field<float>(Device::cpu, {17, 22, 1}, {1e-9, 1e-9, 2e-9}, {}, 1e-5);
}

TEST(MpiDemag, BoxesSlabsAlongZ) {
  expect_same_field<double>(Device::cpu, {9, 7, 11}, {1e-9, 2e-9, 1.5e-9}, {}, 1e-12);
  expect_same_field<double>(Device::cpu, {6, 1, 9}, {1e-9, 1e-9, 1e-9}, {}, 1e-12);
}

TEST(MpiDemag, PeriodicAxes) {
  Periodicity xy;
  xy.axis = {true, true, false};
  xy.images = 2;
  expect_same_field<double>(Device::cpu, {16, 12, 1}, {2e-9, 2e-9, 1e-9}, xy, 1e-12);
  Periodicity z;
  z.axis = {false, false, true};
  z.images = 1;
  expect_same_field<double>(Device::cpu, {5, 6, 8}, {1e-9, 1e-9, 1e-9}, z, 1e-12);
}

TEST(MpiDemag, OnTheGpu) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU: " << cuda_unavailable_reason();
  expect_same_field<double>(Device::cuda, {24, 19, 1}, {2e-9, 3e-9, 1e-9}, {}, 1e-12);
  expect_same_field<float>(Device::cuda, {33, 20, 1}, {1e-9, 1e-9, 2e-9}, {}, 1e-5);
  expect_same_field<double>(Device::cuda, {9, 7, 11}, {1e-9, 2e-9, 1.5e-9}, {}, 1e-12);
  Periodicity xy;
  xy.axis = {true, true, false};
  xy.images = 2;
  expect_same_field<double>(Device::cuda, {16, 12, 1}, {2e-9, 2e-9, 1e-9}, xy, 1e-12);
  // The fused column pass: 63 rows pad to 128 (uneven slabs on 2 and 4 ranks), 32 rows to
  // 64, and a periodic y of 32 rows.
  expect_same_field<double>(Device::cuda, {20, 63, 1}, {2e-9, 3e-9, 1e-9}, {}, 1e-12, true);
  expect_same_field<float>(Device::cuda, {37, 63, 1}, {1e-9, 1e-9, 2e-9}, {}, 1e-5, true);
  expect_same_field<double>(Device::cuda, {40, 32, 1}, {1e-9, 2e-9, 1e-9}, {}, 1e-12, true);
  expect_same_field<double>(Device::cuda, {24, 32, 1}, {2e-9, 2e-9, 1e-9}, xy, 1e-12, true);
  // The same by messages where the GPUs could read each other directly.
  expect_same_field<double>(Device::cuda, {20, 63, 1}, {2e-9, 3e-9, 1e-9}, {}, 1e-12, true,
                            PeerPath::messages);
  expect_same_field<double>(Device::cuda, {24, 32, 1}, {2e-9, 2e-9, 1e-9}, xy, 1e-12, true,
                            PeerPath::messages);
}

// The self-check the micromag command runs on ranks: the split convolution against the
// direct O(N^2) sum (not only against one process's convolution).
TEST(MpiDemag, DirectSumOnRanks) {
  const int ranks = Communicator::world().size();
  const int planes = std::max(6, 2 * ranks);
  EXPECT_LT(DemagOnRanks<double>::check_against_direct_sum(Device::cpu, {6, planes, 1},
                                                           {2e-9, 3e-9, 1e-9}),
            1e-9);
  EXPECT_LT(DemagOnRanks<float>::check_against_direct_sum(Device::cpu, {5, 4, planes},
                                                          {1e-9, 1e-9, 2e-9}),
            1e-4);
  Periodicity x;
  x.axis = {true, false, false};
  x.images = 2;
  EXPECT_LT(DemagOnRanks<double>::check_against_direct_sum(Device::cpu, {6, planes, 1},
                                                           {2e-9, 2e-9, 1e-9}, x),
            1e-9);
  if (!cuda_available()) return;
  // 8 rows pad to 16: the fused column pass on GPUs.
  EXPECT_LT(DemagOnRanks<double>::check_against_direct_sum(Device::cuda, {6, std::max(8, planes), 1},
                                                           {2e-9, 3e-9, 1e-9}),
            1e-9);
  EXPECT_LT(DemagOnRanks<float>::check_against_direct_sum(Device::cuda, {6, std::max(8, planes), 1},
                                                          {2e-9, 3e-9, 1e-9}),
            1e-4);
}

// Whether the ranks' GPUs read each other directly is the machine's to say; where every
// rank has a GPU of its own on one host with peer access, the fused path does.
TEST(MpiDemag, DirectWhereThePeersReachEachOther) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU: " << cuda_unavailable_reason();
  const bool reach = peer_memory_available();
  DemagOnRanks<float> d(Device::cuda, {64, 32, 1}, {1e-9, 1e-9, 1e-9});
  EXPECT_TRUE(d.fused());
  EXPECT_EQ(d.direct(), reach);
  std::cout << "[ direct   ] " << Communicator::world().size() << " ranks: "
            << (reach ? "peer memory" : "messages") << "\n";
}

}  // namespace
}  // namespace gridsolve::demag
