// exchange_ghosts across ranks: every rank's field, ghosts included, equals the whole
// field's after the one-process exchange, for each rule, centring, ghost width and process
// grid (uneven boxes on 3 ranks, periodic sides wrapping between ranks), on the CPU and,
// where there is a GPU, on it (the device link: NCCL, or staged through the host).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"

namespace gridsolve {
namespace {

// Non-zero values that differ at every index and component, images included.
double value_at(int i, int j, int k, int c) {
  return 1.0 + 0.5 * i + 17.25 * j + 301.125 * k + 5003.0 * c + 0.001 * i * j;
}

template <class T>
void fill_valid(Field<T>& f) {
  const Box b = f.interior();
  const FieldView<T> v = f.view();
  for (int c = 0; c < f.ncomp(); ++c)
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) v(i, j, k, c) = T(value_at(i, j, k, c));
}

struct Case {
  std::string name;
  Box global;
  int dims;
  int ghost;
  int ncomp;
  GhostSides sides;
};

// Each process grid the run's ranks allow for the case: the automatic one, and all the
// ranks along each axis in turn where the boxes stay wide enough.
std::vector<std::array<int, 3>> grids_for(const Case& c, int ranks) {
  std::vector<std::array<int, 3>> grids{{0, 0, 0}};
  for (int a = 0; a < c.dims; ++a) {
    std::array<int, 3> p{1, 1, 1};
    p[a] = ranks;
    if (c.global.extent(a) / ranks >= c.ghost + 1) grids.push_back(p);
  }
  return grids;
}

// The devices a part is checked on: the CPU, and the GPU where there is one.
std::vector<Device> devices() {
  std::vector<Device> d{Device::cpu};
  if (cuda_available()) d.push_back(Device::cuda);
  return d;
}

void check_case(const Case& c) {
  const Communicator& comm = Communicator::world();
  std::array<bool, 3> periodic{};
  for (int a = 0; a < 3; ++a) periodic[a] = c.sides.face[2 * a] == GhostRule::periodic;
  // The reference: the whole field on every rank, exchanged on one patch.
  Field<double> whole(c.global, c.dims, c.ncomp, c.ghost, Device::cpu);
  fill_valid(whole);
  exchange_ghosts(whole, c.sides);
  const FieldView<const double> want = whole.cview();
  for (const auto& grid : grids_for(c, comm.size()))
    for (const Device device : devices()) {
      auto parts = std::make_shared<const Decomposition>(c.global, c.dims, comm.size(), periodic,
                                                         grid, c.ghost + 1);
      Field<double> filled(parts, comm.rank(), c.ncomp, c.ghost, Device::cpu);
      fill_valid(filled);
      Field<double> on_device = filled.copy_to(device);
      exchange_ghosts(on_device, c.sides);
      const Field<double> part = on_device.copy_to(Device::cpu);
      const std::string where = c.name + " on " + to_string(device);
      const Box b = part.interior().grown(c.ghost);
      const int zg = c.dims == 3 ? c.ghost : 0;
      const FieldView<const double> got = part.cview();
      int wrong = 0;
      for (int comp = 0; comp < c.ncomp; ++comp)
        for (int k = b.lo[2] + c.ghost - zg; k <= b.hi[2] - c.ghost + zg; ++k)
          for (int j = b.lo[1]; j <= b.hi[1]; ++j)
            for (int i = b.lo[0]; i <= b.hi[0]; ++i)
              if (got(i, j, k, comp) != want(i, j, k, comp) && ++wrong <= 3)
                ADD_FAILURE() << where << " on a " << parts->describe() << " grid, rank "
                              << comm.rank() << ": (" << i << ", " << j << ", " << k << ", " << comp
                              << ") is " << got(i, j, k, comp) << ", want " << want(i, j, k, comp);
      EXPECT_EQ(wrong, 0) << where << " on a " << parts->describe() << " grid";
    }
}

GhostSides sides_of(GhostRule x, GhostRule y, GhostRule z = GhostRule::keep) {
  GhostSides s;
  s.face = {x, x, y, y, z, z};
  return s;
}

TEST(MpiGhosts, PeriodicNodesEveryWidth) {
  for (int g = 1; g <= 3; ++g)
    check_case({"periodic nodes, ghost " + std::to_string(g), Box{{0, 0, 0}, {16, 16, 0}}, 2, g, 1,
                GhostSides::all(GhostRule::periodic)});
}

TEST(MpiGhosts, PeriodicNodesWithoutImageRewrite) {
  GhostSides s = GhostSides::all(GhostRule::periodic);
  s.rewrite_images = false;
  check_case({"periodic nodes, images kept", Box{{0, 0, 0}, {16, 12, 0}}, 2, 2, 2, s});
}

TEST(MpiGhosts, PeriodicCellsAndOffsetBox) {
  check_case({"periodic cells", Box{{-3, 2, 0}, {13, 18, 0}, Centring::cell()}, 2, 2, 1,
              GhostSides::all(GhostRule::periodic)});
  check_case({"periodic face-x", Box{{0, 0, 0}, {16, 15, 0}, Centring::face(0)}, 2, 1, 1,
              GhostSides::all(GhostRule::periodic)});
}

TEST(MpiGhosts, PhysicalRulesBesideRankFaces) {
  GhostSides s = sides_of(GhostRule::periodic, GhostRule::copy_edge);
  check_case({"periodic x, copy_edge y", Box{{0, 0, 0}, {16, 16, 0}}, 2, 2, 2, s});
  s.face = {GhostRule::zero, GhostRule::mirror, GhostRule::mirror,
            GhostRule::keep, GhostRule::keep,   GhostRule::keep};
  s.mirror[1].value = 2.5;
  s.mirror[2].value = -1;
  s.mirror[2].factor = 0.5;
  check_case({"zero, mirror and keep", Box{{0, 0, 0}, {17, 13, 0}, Centring::cell()}, 2, 1, 3, s});
}

TEST(MpiGhosts, ThreeDimensionsCornersIncluded) {
  check_case({"3D periodic nodes", Box{{0, 0, 0}, {12, 12, 12}}, 3, 2, 1,
              GhostSides::all(GhostRule::periodic)});
  check_case({"3D mixed", Box{{0, 0, 0}, {12, 9, 12}, Centring::cell()}, 3, 1, 2,
              sides_of(GhostRule::copy_edge, GhostRule::periodic, GhostRule::periodic)});
}

TEST(MpiGhosts, UnsignedBytesTravelToo) {
  const Communicator& comm = Communicator::world();
  const Box global{{0, 0, 0}, {12, 12, 0}};
  auto parts = std::make_shared<const Decomposition>(global, 2, comm.size());
  Field<std::uint8_t> whole(global, 2, 1, 1, Device::cpu),
      part(parts, comm.rank(), 1, 1, Device::cpu);
  for (Field<std::uint8_t>* f : {&whole, &part}) {
    const Box b = f->interior();
    const FieldView<std::uint8_t> v = f->view();
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i) v(i, j, 0) = std::uint8_t(1 + (3 * i + 7 * j) % 200);
    exchange_ghosts(*f, GhostSides::all(GhostRule::copy_edge));
  }
  const Box b = part.interior().grown(1);
  for (int j = b.lo[1]; j <= b.hi[1]; ++j)
    for (int i = b.lo[0]; i <= b.hi[0]; ++i)
      EXPECT_EQ(part.cview()(i, j, 0), whole.cview()(i, j, 0)) << i << "," << j;
}

}  // namespace
}  // namespace gridsolve
