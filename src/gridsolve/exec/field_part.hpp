// field_part: one rank's part of a whole field, ghosts included, copied out of it; and
// gather_parts, the reverse, onto every rank (through host memory).
#pragma once
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/exec/field.hpp"

namespace gridsolve {

// The field of rank `rank`'s box of `parts`, with whole's components and ghost width, and
// every value of that box and its ghost layers taken from whole (whose box must be the
// decomposition's global box). For parts made from data every rank holds (operator_part,
// tests); a run that assembles on each rank's box needs no whole field.
template <class T>
Field<T> field_part(const Field<T>& whole, std::shared_ptr<const Decomposition> parts, int rank) {
  const Box global = whole.interior();
  require(global.lo == parts->global().lo && global.hi == parts->global().hi,
          "a field's part must be cut from a field of the decomposition's global box");
  if (whole.device() != Device::cpu)  // cut on the host, then placed on whole's device
    return field_part(whole.copy_to(Device::cpu), std::move(parts), rank).copy_to(whole.device());
  Field<T> part(std::move(parts), rank, whole.ncomp(), whole.ghost(), Device::cpu);
  const int g = whole.ghost(), zg = whole.dims() == 3 ? g : 0;
  Box b = part.interior().grown(g);
  b.lo[2] += g - zg, b.hi[2] -= g - zg;
  const FieldView<const T> from = whole.cview();
  const FieldView<T> to = part.view();
  for (int c = 0; c < whole.ncomp(); ++c)
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) to(i, j, k, c) = from(i, j, k, c);
  return part;
}

// Every rank's part (on any device) written into `whole` (a CPU field of the
// decomposition's global box) on every rank:
// the valid values only (whole's ghosts are left alone). A collective: every rank calls it.
// Each rank places its values into a zero array of the whole box and one all-reduce sums
// them (each value is one rank's, the others add exact zeros): simple, and as costly as
// an all-reduce of the whole field, which is fine for output of the sizes run on ranks so
// far; a parallel HDF5 writer will make it unnecessary.
template <class T>
void gather_parts(const Field<T>& part, Field<T>& whole) {
  if (part.device() != Device::cpu) return gather_parts(part.copy_to(Device::cpu), whole);
  const Decomposition& parts = *part.decomposition();
  const Box global = whole.interior();
  require(global.lo == parts.global().lo && global.hi == parts.global().hi &&
              whole.ncomp() == part.ncomp() && whole.device() == Device::cpu,
          "parts gather into a CPU field of the decomposition's global box");
  const std::int64_t nx = global.extent(0), ny = global.extent(1), nz = global.extent(2);
  const int ncomp = part.ncomp();
  std::vector<double> all(std::size_t(nx * ny * nz * ncomp), 0.0);
  auto at = [&](int i, int j, int k, int c) -> double& {
    return all[std::size_t((i - global.lo[0]) +
                           nx * ((j - global.lo[1]) + ny * ((k - global.lo[2]) + nz * c)))];
  };
  const Box b = part.interior();
  const FieldView<const T> from = part.cview();
  for (int c = 0; c < ncomp; ++c)
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) at(i, j, k, c) = double(from(i, j, k, c));
  Communicator::world().sum(std::span<double>(all));
  const FieldView<T> to = whole.view();
  for (int c = 0; c < ncomp; ++c)
    for (int k = global.lo[2]; k <= global.hi[2]; ++k)
      for (int j = global.lo[1]; j <= global.hi[1]; ++j)
        for (int i = global.lo[0]; i <= global.hi[0]; ++i) to(i, j, k, c) = T(at(i, j, k, c));
}

}  // namespace gridsolve
