// field_part and gather_parts: a whole field cut into the ranks' parts and gathered onto
// one rank is the field again (uneven boxes, several components, float and double, 2D and
// 3D), and the other ranks' copy is left as it was.
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

}  // namespace
}  // namespace gridsolve
