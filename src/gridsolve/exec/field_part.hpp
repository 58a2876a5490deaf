// field_part: one rank's part of a whole field, ghosts included, copied out of it; and
// the reverse: gather_parts onto one rank (through host memory), gather_parts_everywhere
// onto every rank (on the device).
#pragma once
#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/exec/field.hpp"

namespace gridsolve {

// Whether `whole` holds the decomposition's global box: its box, or its box and the first
// ghost layer above on axes where the global box is one longer (a periodic axis of cells
// split with its image, the cell past the period: Decomposition::staggered).
template <class T>
bool holds_global_box(const Field<T>& whole, const Decomposition& parts) {
  const Box w = whole.interior(), g = parts.global();
  for (int a = 0; a < 3; ++a) {
    const int beyond = a < whole.dims() && whole.ghost() > 0 ? 1 : 0;
    if (w.lo[a] != g.lo[a] || g.hi[a] < w.hi[a] || g.hi[a] > w.hi[a] + beyond) return false;
  }
  return true;
}

// The field of rank `rank`'s box of `parts`, with whole's components and ghost width, and
// every value of that box and its ghost layers that whole holds taken from it (whole must
// hold the decomposition's global box). For parts made from data every rank holds
// (operator_part, tests); a run that assembles on each rank's box needs no whole field.
template <class T>
Field<T> field_part(const Field<T>& whole, std::shared_ptr<const Decomposition> parts, int rank) {
  require(holds_global_box(whole, *parts),
          "a field's part must be cut from a field of the decomposition's global box");
  if (whole.device() != Device::cpu)  // cut on the host, then placed on whole's device
    return field_part(whole.copy_to(Device::cpu), std::move(parts), rank).copy_to(whole.device());
  Field<T> part(std::move(parts), rank, whole.ncomp(), whole.ghost(), Device::cpu);
  const Box b = part.stored().intersect(whole.stored());
  const FieldView<const T> from = whole.cview();
  const FieldView<T> to = part.view();
  for (int c = 0; c < whole.ncomp(); ++c)
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) to(i, j, k, c) = from(i, j, k, c);
  return part;
}

// Every rank's part (on any device) written into `whole` (a CPU field of the
// decomposition's global box) on rank `root`: the valid values, and with side_ghosts > 0
// that many ghost layers beyond the global box's sides from the parts that touch them
// (what the sides' rules put there; both fields need that many; those beyond whole's
// storage, past a periodic image, are dropped); whole's other ghosts are left alone, and
// so is `whole` on the other ranks, which may pass an empty field. Every rank calls it.
// Each part travels to the root as one message (in pieces of at most 1 GiB, MPI counting
// in int), the root receiving one rank after another: it holds the whole field and one
// part at a time, the others only their own part.
template <class T>
void gather_parts(const Field<T>& part, Field<T>& whole, int root = 0, int side_ghosts = 0) {
  if (part.device() != Device::cpu)
    return gather_parts(part.copy_to(Device::cpu), whole, root, side_ghosts);
  const Decomposition& parts = *part.decomposition();
  require(side_ghosts >= 0 && side_ghosts <= part.ghost(),
          "gather_parts: more side ghost layers than the part holds");
  // Rank r's values that travel: its box, grown by side_ghosts where it meets a side.
  auto gathered = [&](int r) {
    Box b = parts.box(r);
    for (int a = 0; a < parts.dims(); ++a) {
      if (parts.at_global_side(r, a, 0)) b.lo[a] -= side_ghosts;
      if (parts.at_global_side(r, a, 1)) b.hi[a] += side_ghosts;
    }
    return b;
  };
  const Communicator& comm = Communicator::world();
  const int ncomp = part.ncomp();
  // A box's values of a field, component after component, x fastest (both ends agree).
  auto for_box = [ncomp](const FieldView<T>& v, const Box& b, auto&& fn) {
    for (int c = 0; c < ncomp; ++c)
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i) fn(v(i, j, k, c));
  };
  // Sends (or receives) `values` in pieces MPI can count.
  auto move = [&comm](std::vector<T>& values, int peer, bool send) {
    const std::size_t piece = (std::size_t(1) << 30) / sizeof(T);
    for (std::size_t at = 0; at < values.size(); at += piece) {
      const std::size_t n = std::min(piece, values.size() - at);
      const Message m{peer, 0, std::as_writable_bytes(std::span<T>(values.data() + at, n))};
      if (send)
        comm.exchange(std::span<const Message>(&m, 1), {});
      else
        comm.exchange({}, std::span<const Message>(&m, 1));
    }
  };
  if (comm.rank() != root) {
    std::vector<T> values;
    values.reserve(std::size_t(gathered(comm.rank()).cells()) * std::size_t(ncomp));
    for_box(part.view(), gathered(comm.rank()), [&](T& x) { values.push_back(x); });
    move(values, root, true);
    return;
  }
  require(holds_global_box(whole, parts) && whole.ncomp() == ncomp &&
              whole.device() == Device::cpu,
          "parts gather into a CPU field of the decomposition's global box");
  // What whole stores. A side ghost past a periodic axis's image (the global box already
  // reaches into whole's first ghost layer there) lies beyond it: received, not written.
  const Box held = whole.stored();
  const FieldView<T> to = whole.view();
  for (int r = 0; r < parts.ranks(); ++r) {
    const Box b = gathered(r);
    if (r == comm.rank()) {  // the root's own part: copied in place
      const Box own = b.intersect(held);
      const FieldView<const T> from = part.cview();
      for (int c = 0; c < ncomp; ++c)
        for (int k = own.lo[2]; k <= own.hi[2]; ++k)
          for (int j = own.lo[1]; j <= own.hi[1]; ++j)
            for (int i = own.lo[0]; i <= own.hi[0]; ++i) to(i, j, k, c) = from(i, j, k, c);
      continue;
    }
    std::vector<T> values(std::size_t(b.cells()) * std::size_t(ncomp));
    move(values, r, false);
    const T* next = values.data();
    for (int c = 0; c < ncomp; ++c)
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i, ++next)
            if (held.contains(i, j, k)) to(i, j, k, c) = *next;
  }
}

// Every rank's part (valid values) copied into `whole`, a field of the decomposition's
// global box on the part's device, on every rank: what a multigrid level split over the
// ranks hands to the coarser levels every rank then holds whole. Messages go by the
// device link on the GPU, by MPI on the host. Every rank calls it; whole's ghosts are left
// alone.
template <class T>
void gather_parts_everywhere(const Field<T>& part, Field<T>& whole);

}  // namespace gridsolve
