// Fields with centring, components, ghost widths and a valid box in global indices.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "gridsolve/exec/field.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"

namespace gridsolve {
namespace {

TEST(Centring, BoxesOfEachCentring) {
  const Grid g = Grid::box(3, {9, 5, 4}, {0, 0, 0}, {8, 4, 3});
  const Box nodes = g.box(Centring::node()), cells = g.box(Centring::cell()),
            fx = g.box(Centring::face(0));
  EXPECT_EQ(nodes.hi, (std::array<int, 3>{8, 4, 3}));
  EXPECT_EQ(cells.hi, (std::array<int, 3>{7, 3, 2}));
  EXPECT_EQ(fx.hi, (std::array<int, 3>{8, 3, 2}));
  EXPECT_EQ(fx.centring, Centring::face(0));
  EXPECT_EQ(Centring::face(1).describe(), "face-y");
  EXPECT_EQ(Centring::cell().describe(), "cell");
  EXPECT_DOUBLE_EQ(g.coord(0, 2, IndexType::node), 2.0);
  EXPECT_DOUBLE_EQ(g.coord(0, 2, IndexType::cell), 2.5);
  // A 2D grid has the single index 0 along z whatever the centring.
  const Grid g2 = Grid::unit(2, 9);
  EXPECT_EQ(g2.box(Centring::cell()).hi, (std::array<int, 3>{7, 7, 0}));
  EXPECT_EQ(g2.cells(2), 1);
}

TEST(Field, ComponentsAreSeparateAlignedArrays) {
  const Grid g = Grid::unit(3, 9);
  Field<double> m(g, Centring::cell(), 3, 1, Device::cpu);
  EXPECT_EQ(m.ncomp(), 3);
  EXPECT_EQ(m.centring(), Centring::cell());
  const Box b = m.interior();
  EXPECT_EQ(b.hi, (std::array<int, 3>{7, 7, 7}));
  const FieldView<double> v = m.view();
  for (int c = 0; c < 3; ++c)
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) v(i, j, k, c) = 1000 * c + 100 * k + 10 * j + i;
  // Each component's first valid value sits on a 128-byte boundary.
  for (int c = 0; c < 3; ++c)
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&v(0, 0, 0, c)) % 128, 0u) << c;
  // Component 0 is what v(i, j, k) addresses.
  EXPECT_EQ(&v(3, 2, 1), &v(3, 2, 1, 0));
  const std::vector<double> packed = m.to_vector();
  ASSERT_EQ(packed.size(), 3u * 512u);
  EXPECT_EQ(packed[0], 0.0);
  EXPECT_EQ(packed[512 + 1], 1001.0);               // component 1, i = 1
  EXPECT_EQ(packed[2 * 512 + 64 + 8 + 3], 2113.0);  // component 2, k = 1, j = 1, i = 3
  // Writing every component left the ghosts zero.
  EXPECT_EQ(v(-1, 0, 0, 2), 0.0);
  EXPECT_EQ(v(8, 7, 7, 1), 0.0);
}

TEST(Field, GlobalIndicesAndWiderGhosts) {
  // A patch of a larger grid: valid indices 40..47 x 16..19, two ghost layers.
  Field<float> f(Box{{40, 16, 0}, {47, 19, 0}}, 2, 1, 2, Device::cpu);
  const FieldView<float> v = f.view();
  EXPECT_EQ(v.begin, (std::array<int, 3>{40, 16, 0}));
  EXPECT_EQ(v.extent, (std::array<int, 3>{8, 4, 1}));
  EXPECT_EQ(v.box().hi, (std::array<int, 3>{47, 19, 0}));
  v(40, 16, 0) = 1;
  v(47, 19, 0) = 2;
  v(38, 14, 0) = 3;  // ghosts, two deep
  v(49, 21, 0) = 4;
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&v(40, 16, 0)) % 128, 0u);
  const std::vector<float> packed = f.to_vector();
  ASSERT_EQ(packed.size(), 32u);
  EXPECT_EQ(packed.front(), 1.0f);
  EXPECT_EQ(packed.back(), 2.0f);
  EXPECT_EQ(v(38, 14, 0), 3.0f);
  EXPECT_EQ(v(49, 21, 0), 4.0f);
  const Field<float> copy = f.copy_to(Device::cpu);
  EXPECT_EQ(copy.cview()(49, 21, 0), 4.0f);
  EXPECT_EQ(copy.interior().lo, (std::array<int, 3>{40, 16, 0}));
}

TEST(Field, RefusesImpossibleShapes) {
  const Grid g = Grid::unit(2, 9);
  EXPECT_THROW(Field<double>(g, Centring::node(), 0, 1, Device::cpu), Error);
  EXPECT_THROW(Field<double>(g, Centring::node(), 1, 4, Device::cpu), Error);
}

// 8 x 8 cells, two components, ghost width 2, every value distinct and non-zero:
// scale * (100 c + 10 j + i + 1).
Field<double> numbered_cells(double scale) {
  const Grid g = Grid::unit(2, 9);
  Field<double> f(g, Centring::cell(), 2, 2, Device::cpu);
  const FieldView<double> v = f.view();
  for (int c = 0; c < 2; ++c)
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 8; ++i) v(i, j, 0, c) = scale * (100 * c + 10 * j + i + 1);
  return f;
}

TEST(ExchangeGhosts, PeriodicCopiedAndZeroSides) {
  Field<double> f = numbered_cells(1.0);
  const FieldView<double> v = f.view();
  GhostSides sides = GhostSides::all(GhostRule::periodic);
  exchange_ghosts(f, sides);
  for (int c = 0; c < 2; ++c) {
    EXPECT_EQ(v(-1, 3, 0, c), v(7, 3, 0, c));
    EXPECT_EQ(v(-2, 3, 0, c), v(6, 3, 0, c));
    EXPECT_EQ(v(8, 5, 0, c), v(0, 5, 0, c));
    EXPECT_EQ(v(4, 9, 0, c), v(4, 1, 0, c));
    EXPECT_EQ(v(-2, -2, 0, c), v(6, 6, 0, c));  // corners through both axes
    EXPECT_EQ(v(9, -1, 0, c), v(1, 7, 0, c));
  }
  // x: zero-gradient on the left, zeros on the right; y untouched.
  f.set_zero();
  for (int j = 0; j < 8; ++j)
    for (int i = 0; i < 8; ++i) v(i, j, 0, 0) = 10 * j + i + 1;
  sides = GhostSides{};
  sides.face[0] = GhostRule::copy_edge;
  sides.face[1] = GhostRule::zero;
  v(8, 2, 0, 0) = 99;
  v(3, -1, 0, 0) = 77;
  exchange_ghosts(f, sides);
  EXPECT_EQ(v(-1, 2, 0, 0), v(0, 2, 0, 0));
  EXPECT_EQ(v(-2, 2, 0, 0), v(0, 2, 0, 0));
  EXPECT_EQ(v(8, 2, 0, 0), 0.0);
  EXPECT_EQ(v(3, -1, 0, 0), 77.0);
  // Node-centred periodic axes repeat with period n - 1: node 8 is node 0's image.
  Field<double> nodes(Grid::unit(2, 9), Centring::node(), 1, 1, Device::cpu);
  const FieldView<double> w = nodes.view();
  for (int j = 0; j < 9; ++j)
    for (int i = 0; i < 9; ++i) w(i, j, 0) = 10 * (j % 8) + (i % 8);
  w(8, 5, 0) = -1;  // a stale image: the exchange rewrites it from node 0
  exchange_ghosts(nodes, GhostSides::all(GhostRule::periodic));
  EXPECT_EQ(w(-1, 4, 0), w(7, 4, 0));
  EXPECT_EQ(w(9, 4, 0), w(1, 4, 0));
  EXPECT_EQ(w(8, 5, 0), w(0, 5, 0));
  EXPECT_EQ(w(3, 8, 0), w(3, 0, 0));
}

// Walls and inflows: the ghost is 2 w f - the edge value, so that their mean, the value
// half a cell out where the wall is, is w f.
TEST(ExchangeGhosts, MirrorAboutAConstantWall) {
  Field<double> f = numbered_cells(0.37);
  const FieldView<double> v = f.view();
  v(3, -1, 0, 1) = 77;
  GhostSides sides;
  sides.face[0] = GhostRule::mirror;
  sides.mirror[0] = GhostMirror{0.5, 3.0, false};
  sides.face[3] = GhostRule::mirror;
  sides.mirror[3].value = -1.25;  // factor 1
  exchange_ghosts(f, sides);
  for (int c = 0; c < 2; ++c)
    for (int j = 0; j < 8; ++j) {
      EXPECT_EQ(v(-1, j, 0, c), 2.0 * 0.5 * 3.0 - v(0, j, 0, c));
      EXPECT_DOUBLE_EQ(0.5 * (v(-1, j, 0, c) + v(0, j, 0, c)), 1.5);
      EXPECT_EQ(v(-2, j, 0, c), v(-1, j, 0, c));  // every layer mirrors the edge value
    }
  for (int i = -2; i < 8; ++i) {  // y after x: over the x ghosts too
    EXPECT_EQ(v(i, 8, 0, 0), 2.0 * -1.25 - v(i, 7, 0, 0));
    EXPECT_DOUBLE_EQ(0.5 * (v(i, 8, 0, 1) + v(i, 7, 0, 1)), -1.25);
  }
  EXPECT_EQ(v(-1, 8, 0, 0), 2.0 * -1.25 - (2.0 * 0.5 * 3.0 - v(0, 7, 0, 0)));  // corner
  EXPECT_EQ(v(3, -1, 0, 1), 77.0);  // kept side
  EXPECT_EQ(v(8, 3, 0, 1), 0.0);
}

// A profile over the face: w read from a field's ghost layer at the ghost's own index,
// scaled by the face's factor (an inflow's ramp); a periodic node axis beside it.
TEST(ExchangeGhosts, MirrorReadsAProfileFromAField) {
  const Grid g = Grid::unit(2, 7);  // 6 x 6 cells; faces normal to x: 7 x 6
  Field<double> u(g, Centring::face(0), 1, 1, Device::cpu);
  Field<double> wall(g, Centring::face(0), 1, 1, Device::cpu);
  const FieldView<double> v = u.view(), w = wall.view();
  for (int j = 0; j < 6; ++j)
    for (int i = 0; i < 7; ++i) v(i, j, 0) = std::sin(1.0 + i) * (j + 2);
  for (int i = -1; i <= 7; ++i) w(i, -1, 0) = 0.1 * i + 0.3, w(i, 6, 0) = 1 - 0.05 * i * i;
  GhostSides sides;
  sides.face[0] = sides.face[1] = GhostRule::periodic;
  sides.face[2] = sides.face[3] = GhostRule::mirror;
  sides.mirror[2] = GhostMirror{0, 0.25, true};
  sides.mirror[3].from_field = true;
  exchange_ghosts(u, sides, wall);
  EXPECT_EQ(v(6, 2, 0), v(0, 2, 0));   // the image face
  EXPECT_EQ(v(-1, 2, 0), v(5, 2, 0));  // period 6
  EXPECT_EQ(v(7, 2, 0), v(1, 2, 0));
  for (int i = -1; i <= 7; ++i) {
    EXPECT_EQ(v(i, -1, 0), 2.0 * w(i, -1, 0) * 0.25 - v(i, 0, 0));
    EXPECT_EQ(v(i, 6, 0), 2.0 * w(i, 6, 0) - v(i, 5, 0));
  }
  // Without the field, or with one of another shape or device, the exchange refuses.
  EXPECT_THROW(exchange_ghosts(u, sides), Error);
  Field<double> other(g, Centring::cell(), 1, 1, Device::cpu);
  EXPECT_THROW(exchange_ghosts(u, sides, other), Error);
}

// A mask whose image node was computed on its own keeps it; its ghosts still wrap.
TEST(ExchangeGhosts, ImagesKeptWhenAsked) {
  const Grid g = Grid::unit(2, 9);
  Field<std::uint8_t> m(g, Centring::face(0), 1, 1, Device::cpu);
  const FieldView<std::uint8_t> v = m.view();
  for (int j = 0; j < 8; ++j)
    for (int i = 0; i < 9; ++i) v(i, j, 0) = std::uint8_t(1 + i + 9 * j);
  GhostSides sides;
  sides.face[0] = sides.face[1] = GhostRule::periodic;
  sides.rewrite_images = false;
  exchange_ghosts(m, sides);
  EXPECT_EQ(v(8, 3, 0), 1 + 8 + 27);  // its own value, not node 0's
  EXPECT_EQ(v(-1, 3, 0), v(7, 3, 0));
  EXPECT_EQ(v(9, 3, 0), v(1, 3, 0));
}

#if defined(GRIDSOLVE_BOUNDS_CHECK)
// The checked build stops at the first index outside the valid box and its ghosts.
TEST(FieldDeathTest, CheckedBuildStopsOutsideTheField) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const Grid g = Grid::unit(2, 9);
  Field<double> f(g, Centring::cell(), 2, 1, Device::cpu);
  const FieldView<double> v = f.view();
  v(-1, 8, 0, 1) = 1;  // ghosts are inside
  EXPECT_DEATH(v(-2, 0, 0) = 1, "outside field");
  EXPECT_DEATH(v(0, 9, 0) = 1, "outside field");
  EXPECT_DEATH(v(0, 0, 1) = 1, "outside field");  // a 2D field has no z ghosts
  EXPECT_DEATH(v(0, 0, 0, 2) = 1, "outside field");
}
#endif

}  // namespace
}  // namespace gridsolve
