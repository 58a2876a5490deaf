// Formula sampling for the assembly: parallel evaluation (one parser per thread) gives
// exactly the values of one parser evaluated point by point, at nodes and midpoints.
#include <gtest/gtest.h>

#include <vector>

#include "gridsolve/problem/node_samples.hpp"

namespace gridsolve {
namespace {

TEST(NodeSamples, ParallelFormulaEqualsSerialEvaluation) {
  const Grid g = Grid::box(3, {37, 29, 11}, {-0.5, 0.25, 1}, {1.5, 2, 2});
  const std::string text = "sin(3 * x) * exp(-y) + x * z ^ 2";
  const Expression e = Expression::parse(text);
  ASSERT_FALSE(e.concurrent);
  const Expression reference = Expression::parse(text);
  for (const std::array<int, 3> half :
       {std::array<int, 3>{0, 0, 0}, std::array<int, 3>{1, 0, 0}, std::array<int, 3>{0, 0, 1}}) {
    Box box{{2, 0, 1}, {35, 28, 9}};  // 34 x 29 x 9 points: enough for every thread
    const Samples s = Samples::of(e, g, box, half, Device::cpu);
    const SampleView v = s.view();
    ASSERT_TRUE(v.varies());
    int checked = 0;
    for (int k = box.lo[2]; k <= box.hi[2]; ++k)
      for (int j = box.lo[1]; j <= box.hi[1]; ++j)
        for (int i = box.lo[0]; i <= box.hi[0]; ++i) {
          auto at = [&](int axis, int c) {
            return half[axis] ? 0.5 * (g.coord(axis, c) + g.coord(axis, c + 1)) : g.coord(axis, c);
          };
          ASSERT_EQ(v(i, j, k), reference(at(0, i), at(1, j), at(2, k)))
              << "point " << i << ", " << j << ", " << k;
          ++checked;
        }
    EXPECT_EQ(checked, 34 * 29 * 9);
  }
}

TEST(NodeSamples, ConstantsAndNodeArraysStoreNothingNew) {
  const Grid g = Grid::box(2, {5, 4, 1}, {0, 0, 0}, {1, 1, 0});
  const Samples c = Samples::of(Expression::value(2.5), g, g.nodes(), {0, 0, 0}, Device::cpu);
  EXPECT_FALSE(c.view().varies());
  EXPECT_EQ(c.view()(3, 2, 0), 2.5);
  std::vector<double> v(20);
  for (std::size_t n = 0; n < v.size(); ++n) v[n] = double(n) * 0.5;
  const Samples a = Samples::of_nodes(v, g, Device::cpu);
  EXPECT_EQ(a.view().values, v.data());  // read in place on the CPU
  EXPECT_EQ(a.view()(3, 2, 0), v[3 + 5 * 2]);
}

}  // namespace
}  // namespace gridsolve
