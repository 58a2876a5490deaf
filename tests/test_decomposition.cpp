// Decomposition: process grids, rank boxes and neighbours (pure arithmetic, one process),
// and a field of a one-rank decomposition behaving exactly as a whole field.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"

namespace gridsolve {
namespace {

Box nodes(int nx, int ny, int nz = 1) {
  return Box{{0, 0, 0}, {nx - 1, ny - 1, nz - 1}};
}

TEST(Decomposition, ChoosesTheGridWithTheFewestFaceValues) {
  EXPECT_EQ(Decomposition(nodes(65, 65), 2, 4).process_grid(), (std::array<int, 3>{2, 2, 1}));
  // Long in x: cuts across x share the short faces.
  EXPECT_EQ(Decomposition(nodes(129, 33), 2, 6).process_grid(), (std::array<int, 3>{6, 1, 1}));
  EXPECT_EQ(Decomposition(nodes(33, 129), 2, 6).process_grid(), (std::array<int, 3>{1, 6, 1}));
  EXPECT_EQ(Decomposition(nodes(17, 17, 17), 3, 8).process_grid(), (std::array<int, 3>{2, 2, 2}));
  EXPECT_EQ(Decomposition(nodes(17, 17, 17), 3, 1).process_grid(), (std::array<int, 3>{1, 1, 1}));
  // A prime count of ranks can only cut one axis; the longer one is cheaper to cut across.
  EXPECT_EQ(Decomposition(nodes(9, 40), 2, 3).process_grid(), (std::array<int, 3>{1, 3, 1}));
  EXPECT_EQ(Decomposition(nodes(33, 33), 2, 4).describe(), "2x2");
  // Ties go to the fewest ranks along x: a cube on two ranks is cut across z.
  EXPECT_EQ(Decomposition(nodes(9, 9, 9), 3, 2).describe(), "1x1x2");
}

TEST(Decomposition, BoxesCoverTheGlobalBoxOnceAndEvenly) {
  const Box global{{-2, 3, 0}, {12, 9, 6}, Centring::cell()};  // 15 x 7 x 7
  for (int ranks : {1, 2, 3, 4, 5, 6, 7, 8, 12}) {
    const Decomposition d(global, 3, ranks);
    std::vector<int> owners(std::size_t(global.cells()), 0);
    for (int r = 0; r < ranks; ++r) {
      const Box b = d.box(r);
      EXPECT_EQ(b.centring, global.centring);
      EXPECT_EQ(d.rank_at(d.coords(r)), r);
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i)
            ++owners[std::size_t((i + 2) + 15 * ((j - 3) + 7 * k))];
      for (int a = 0; a < 3; ++a) {  // extents differ by at most one along an axis
        const int even = global.extent(a) / d.process_grid()[a];
        EXPECT_TRUE(b.extent(a) == even || b.extent(a) == even + 1) << ranks << " ranks";
      }
    }
    for (int n : owners) EXPECT_EQ(n, 1) << ranks << " ranks";
  }
  // Uneven: the first ranks take one more.
  const Decomposition three(nodes(10, 4), 2, 3, {}, {3, 1, 1});
  EXPECT_EQ(three.box(0).lo[0], 0);
  EXPECT_EQ(three.box(0).hi[0], 3);
  EXPECT_EQ(three.box(1).hi[0], 6);
  EXPECT_EQ(three.box(2).hi[0], 9);
}

// Cuts by work: an L-shaped domain's unknowns per column (the upper right quarter cut
// out) split over 2 x 2 ranks give each column of ranks half the unknowns, which the even
// split does not; every index is still owned once and the other axis keeps its own cuts.
TEST(Decomposition, BalancedCutsShareTheWork) {
  const int n = 101;
  std::array<std::vector<double>, 3> work;
  work[0].resize(n), work[1].resize(n);
  for (int i = 0; i < n; ++i) work[0][std::size_t(i)] = i < 50 ? 101 : 50;  // column i
  const Decomposition even(nodes(n, n), 2, 4, {}, {2, 2, 1});
  const Decomposition d = even.balanced(work);
  double left = 0, right = 0;
  for (int i = 0; i < n; ++i) (i <= d.box(0).hi[0] ? left : right) += work[0][std::size_t(i)];
  EXPECT_NEAR(left / (left + right), 0.5, 0.01);
  EXPECT_LT(d.box(0).hi[0], even.box(0).hi[0]);  // the full columns go to fewer planes
  EXPECT_EQ(d.box(1).lo[0], d.box(0).hi[0] + 1);
  EXPECT_EQ(d.box(3).lo[0], d.box(1).lo[0]);     // the same cut in every row of ranks
  EXPECT_EQ(d.box(0).hi[1], even.box(0).hi[1]);  // y had no work given: even
  // Work in one plane only: the parts still hold min_extent planes each.
  std::array<std::vector<double>, 3> spike;
  spike[0].assign(std::size_t(n), 0.0);
  spike[0][50] = 1;
  const Decomposition s = Decomposition(nodes(n, 5), 2, 4, {}, {4, 1, 1}).balanced(spike, 3);
  for (int r = 0; r < 4; ++r) EXPECT_GE(s.box(r).extent(0), 3) << r;
  EXPECT_EQ(s.box(3).hi[0], n - 1);
  EXPECT_THROW(even.balanced({std::vector<double>(7, 1.0), {}, {}}), Error);
}

// A multigrid level's decomposition: coarse node I (fine node min(2 I, n - 1)) belongs to
// the rank whose fine box holds that fine node, for even and odd counts, even and balanced
// cuts; each coarse box reads its fine nodes within one ghost layer; a level too small for
// the ranks has no decomposition.
TEST(Decomposition, CoarsenedLevelsKeepEachNodeOnItsFineRank) {
  for (const int n : {101, 100, 33}) {
    const Decomposition even(nodes(n, 17), 2, 6, {}, {3, 2, 1});
    std::array<std::vector<double>, 3> work;
    work[0].resize(std::size_t(n));
    for (int i = 0; i < n; ++i) work[0][std::size_t(i)] = i < n / 3 ? 1 : 3;
    for (const Decomposition& fine : {even, even.balanced(work)}) {
      const std::array<int, 3> coarse_n{n / 2 + 1, 17, 1};
      const std::optional<Decomposition> coarse = fine.coarsened(coarse_n, {true, false, false});
      ASSERT_TRUE(coarse.has_value()) << n;
      EXPECT_EQ(coarse->global().hi[0], n / 2);
      for (int I = 0; I < coarse_n[0]; ++I) {
        const int f = std::min(2 * I, n - 1);
        for (int r = 0; r < 6; ++r) {
          const bool owns_coarse = I >= coarse->box(r).lo[0] && I <= coarse->box(r).hi[0];
          const bool owns_fine = f >= fine.box(r).lo[0] && f <= fine.box(r).hi[0];
          EXPECT_EQ(owns_coarse, owns_fine) << "n " << n << ", I " << I << ", rank " << r;
        }
      }
      for (int r = 0; r < 6; ++r) {
        EXPECT_EQ(coarse->box(r).lo[1], fine.box(r).lo[1]);  // y not halved: the same cuts
        EXPECT_EQ(coarse->box(r).hi[1], fine.box(r).hi[1]);
      }
    }
  }
  // Three ranks along 9 nodes: the coarse level's 5 nodes leave a rank fewer than two.
  const Decomposition thin(nodes(9, 9), 2, 3, {}, {3, 1, 1});
  EXPECT_FALSE(thin.coarsened({5, 9, 1}, {true, false, false}).has_value());
}

TEST(Decomposition, NeighboursWrapOnPeriodicAxesOnly) {
  const Decomposition d(nodes(20, 20), 2, 6, {true, false, false}, {3, 2, 1});
  // Rank 4 sits at (1, 1): x neighbours 3 and 5, y neighbour 1 below, a physical side above.
  EXPECT_EQ(d.coords(4), (std::array<int, 3>{1, 1, 0}));
  EXPECT_EQ(d.neighbour(4, 0), 3);
  EXPECT_EQ(d.neighbour(4, 1), 5);
  EXPECT_EQ(d.neighbour(4, 2), 1);
  EXPECT_EQ(d.neighbour(4, 3), no_rank);
  // x is periodic: rank 3 at (0, 1) wraps to rank 5; y is not: rank 0 has none below.
  EXPECT_EQ(d.neighbour(3, 0), 5);
  EXPECT_EQ(d.neighbour(5, 1), 3);
  EXPECT_EQ(d.neighbour(0, 2), no_rank);
  EXPECT_EQ(d.neighbour(0, 4), no_rank);  // 2D: no z faces
  EXPECT_TRUE(d.at_global_side(3, 0, 0));
  EXPECT_FALSE(d.at_global_side(4, 0, 1));
  // One rank along a periodic axis is its own neighbour.
  const Decomposition one(nodes(9, 9), 2, 2, {true, true, false}, {2, 1, 1});
  EXPECT_EQ(one.neighbour(1, 2), 1);
  EXPECT_EQ(one.neighbour(1, 1), 0);
}

TEST(Decomposition, RefusesWhatCannotSplit) {
  EXPECT_THROW(Decomposition(nodes(9, 9), 2, 6, {}, {4, 1, 1}), Error);  // 6 ranks, 4 given
  EXPECT_THROW(Decomposition(nodes(7, 9), 2, 4, {}, {4, 1, 1}), Error);  // 1 value a rank
  EXPECT_THROW(Decomposition(nodes(3, 3), 2, 4), Error);
  EXPECT_THROW(Decomposition(nodes(9, 9), 2, 2, {}, {1, 1, 2}), Error);  // z in 2D
  try {
    Decomposition(nodes(5, 4), 2, 7);
    FAIL() << "7 ranks on 5x4 nodes";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("5x4"), std::string::npos) << e.what();
  }
}

TEST(Decomposition, ParsesRanksGrids) {
  EXPECT_EQ(parse_ranks_grid("2x3", 2, 6), (std::array<int, 3>{2, 3, 1}));
  EXPECT_EQ(parse_ranks_grid("1x2x2", 3, 4), (std::array<int, 3>{1, 2, 2}));
  for (const char* bad :
       {"", "2", "2x", "x2", "2x3x1", "0x6", "2*3", "2x3 ", "-2x-3", "3x3", "99999999999x1"})
    EXPECT_THROW(parse_ranks_grid(bad, 2, 6), Error) << bad;
  EXPECT_THROW(parse_ranks_grid("2x3", 3, 6), Error);
}

// A one-rank decomposition's field is the whole field: the same box, and every rule of
// exchange_ghosts on the same values gives the same ghosts.
TEST(Decomposition, OneRankFieldExchangesAsAWholeField) {
  const Box global{{0, 0, 0}, {8, 6, 0}, Centring::node()};
  auto parts =
      std::make_shared<const Decomposition>(global, 2, 1, std::array<bool, 3>{true, false, false});
  Field<double> whole(global, 2, 2, 2, Device::cpu);
  Field<double> part(parts, 0, 2, 2, Device::cpu);
  ASSERT_EQ(part.interior().lo, whole.interior().lo);
  ASSERT_EQ(part.interior().hi, whole.interior().hi);
  for (Field<double>* f : {&whole, &part}) {
    const FieldView<double> v = f->view();
    for (int c = 0; c < 2; ++c)
      for (int j = 0; j <= 6; ++j)
        for (int i = 0; i <= 8; ++i) v(i, j, 0, c) = 1 + i + 10 * j + 100 * c;
  }
  GhostSides sides;
  sides.face = {GhostRule::periodic,  GhostRule::periodic, GhostRule::mirror,
                GhostRule::copy_edge, GhostRule::keep,     GhostRule::keep};
  sides.mirror[2].value = 3;
  exchange_ghosts(whole, sides);
  exchange_ghosts(part, sides);
  const FieldView<const double> a = whole.cview(), b = part.cview();
  for (int c = 0; c < 2; ++c)
    for (int j = -2; j <= 8; ++j)
      for (int i = -2; i <= 10; ++i) EXPECT_EQ(a(i, j, 0, c), b(i, j, 0, c)) << i << "," << j;
}

}  // namespace
}  // namespace gridsolve
