// field_part and gather_parts: a whole field cut into the ranks' parts and gathered onto
// one rank is the field again (uneven boxes, several components, float and double, 2D and
// 3D), and the other ranks' copy is left as it was; gathered onto every rank, it is the
// field on each.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/exec/field_part.hpp"

namespace gridsolve {
namespace {

template <class T>
void check_gather(const Box& global, int dims, int ncomp, int root) {
  const Communicator& comm = Communicator::world();
  auto parts = std::make_shared<const Decomposition>(global, dims, comm.size());
  Field<T> whole(global, dims, ncomp, 1, Device::cpu);
  const FieldView<T> w = whole.view();
  auto value = [](int i, int j, int k, int c) {
    return T(1 + 0.5 * i + 7.25 * j + 101.5 * k + 3001 * c);
  };
  for (int c = 0; c < ncomp; ++c)
    for (int k = global.lo[2]; k <= global.hi[2]; ++k)
      for (int j = global.lo[1]; j <= global.hi[1]; ++j)
        for (int i = global.lo[0]; i <= global.hi[0]; ++i) w(i, j, k, c) = value(i, j, k, c);
  const Field<T> part = field_part(whole, parts, comm.rank());
  whole.set_zero();
  gather_parts(part, whole, root % comm.size());
  const bool here = comm.rank() == root % comm.size();
  int wrong = 0;
  for (int c = 0; c < ncomp; ++c)
    for (int k = global.lo[2]; k <= global.hi[2]; ++k)
      for (int j = global.lo[1]; j <= global.hi[1]; ++j)
        for (int i = global.lo[0]; i <= global.hi[0]; ++i)
          wrong += w(i, j, k, c) != (here ? value(i, j, k, c) : T(0));
  EXPECT_EQ(wrong, 0) << dims << "D, " << ncomp << " components, rank " << comm.rank()
                      << (here ? " (the root)" : "") << " of a " << parts->describe() << " grid";
}

TEST(MpiFields, PartsGatherOntoOneRank) {
  check_gather<double>(Box{{0, 0, 0}, {16, 12, 0}}, 2, 1, 0);
  check_gather<float>(Box{{-2, 3, 0}, {14, 19, 0}, Centring::cell()}, 2, 3, 1);
  check_gather<double>(Box{{0, 0, 0}, {8, 9, 10}}, 3, 2, 2);
}

// Every rank's part onto every rank (the multigrid levels' gather): the whole field on
// each, its ghosts left as they were.
template <class T>
void check_gather_everywhere(const Box& global, int dims, int ncomp) {
  const Communicator& comm = Communicator::world();
  auto parts = std::make_shared<const Decomposition>(global, dims, comm.size());
  Field<T> whole(global, dims, ncomp, 1, Device::cpu);
  const FieldView<T> w = whole.view();
  auto value = [](int i, int j, int k, int c) {
    return T(3 + 0.25 * i - 5.5 * j + 77 * k + 1000 * c);
  };
  for (int c = 0; c < ncomp; ++c)
    for (int k = global.lo[2]; k <= global.hi[2]; ++k)
      for (int j = global.lo[1]; j <= global.hi[1]; ++j)
        for (int i = global.lo[0]; i <= global.hi[0]; ++i) w(i, j, k, c) = value(i, j, k, c);
  const Field<T> part = field_part(whole, parts, comm.rank());
  Field<T> gathered(global, dims, ncomp, 1, Device::cpu);
  gathered.set_zero();
  gather_parts_everywhere(part, gathered);
  const FieldView<const T> g = gathered.cview();
  int wrong = 0;
  for (int c = 0; c < ncomp; ++c)
    for (int k = global.lo[2]; k <= global.hi[2]; ++k)
      for (int j = global.lo[1]; j <= global.hi[1]; ++j)
        for (int i = global.lo[0]; i <= global.hi[0]; ++i)
          wrong += g(i, j, k, c) != value(i, j, k, c);
  EXPECT_EQ(wrong, 0) << dims << "D, rank " << comm.rank() << " of a " << parts->describe();
  EXPECT_EQ(g(global.lo[0] - 1, global.lo[1], global.lo[2], 0), T(0));  // a ghost: untouched
}

TEST(MpiFields, PartsGatherOntoEveryRank) {
  check_gather_everywhere<double>(Box{{0, 0, 0}, {16, 12, 0}}, 2, 1);
  check_gather_everywhere<float>(Box{{0, 0, 0}, {8, 9, 10}}, 3, 2);
}

}  // namespace
}  // namespace gridsolve
