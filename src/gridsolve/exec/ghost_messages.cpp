// Ghost messages between ranks: each face slab packed into a buffer (by a loop on the
// field's device), all of an axis's messages in flight at once (MPI for host buffers,
// the device link for GPU ones), then unpacked into the ghosts.
#include "gridsolve/exec/ghost_messages.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device_link.hpp"
#include "gridsolve/exec/packed_slab.hpp"

namespace gridsolve {

namespace {

const char* const axis_names[3] = {"x", "y", "z"};

// The rank one step along `axis` (step -1 or +1), wrapping around the process grid.
int rank_beside(const Decomposition& d, int rank, int axis, int step) {
  std::array<int, 3> c = d.coords(rank);
  const int p = d.process_grid()[axis];
  c[axis] = (c[axis] + step + p) % p;
  return d.rank_at(c);
}

// `span` with the range [first, last] on `axis`.
Box slab_of(const Box& span, int axis, int first, int last) {
  Box b = span;
  b.lo[axis] = first;
  b.hi[axis] = last;
  return b;
}

// The message tags: which way along which axis a message goes.
int tag_up(int axis) {
  return 2 * axis;
}  // to the rank above: fills its low ghosts
int tag_down(int axis) {
  return 2 * axis + 1;
}  // to the rank below: its high ghosts

}  // namespace

template <class T>
bool ghost_face_has_message(const Field<T>& f, const GhostSides& sides, int face) {
  const Decomposition* d = f.decomposition();
  if (!d) return false;
  const int axis = face / 2, side = face % 2;
  if (!d->at_global_side(f.rank(), axis, side)) return true;
  return sides.face[face] == GhostRule::periodic && d->process_grid()[axis] > 1;
}

template <class T>
void exchange_ghost_messages(Field<T>& f, const GhostSides& sides, int axis, const Box& span) {
  const Decomposition& d = *f.decomposition();
  const Communicator& comm = Communicator::world();
  require(d.ranks() == comm.size(), "a field split over " + std::to_string(d.ranks()) +
                                        " ranks in a run of " + std::to_string(comm.size()));
  const bool has_low = ghost_face_has_message(f, sides, 2 * axis);
  const bool has_high = ghost_face_has_message(f, sides, 2 * axis + 1);
  if (!has_low && !has_high) return;

  const int g = f.ghost(), rank = f.rank();
  const Box valid = f.interior();
  const int lo = valid.lo[axis], hi = valid.hi[axis];
  // A periodic node-centred axis repeats with period n - 1: its last node is the first
  // node's image, so what wraps skips it (and rewrites it, on request), as on one patch.
  const bool node_wrap = !valid.centring.is_cell(axis);
  const bool low_wraps = d.at_global_side(rank, axis, 0);
  const bool high_wraps = d.at_global_side(rank, axis, 1);
  const bool rewrite = node_wrap && sides.rewrite_images;
  require(valid.extent(axis) >= g + 1,
          std::string("a rank's box holds ") + std::to_string(valid.extent(axis)) + " values in " +
              axis_names[axis] + ", too few to send ghost layers of width " + std::to_string(g) +
              " (it needs " + std::to_string(g + 1) +
              "): use fewer ranks on that axis or a larger grid");

  std::vector<Box> send_slabs, receive_slabs;
  std::vector<Message> outgoing, incoming;
  if (has_high) {  // send up what the rank above reads below its box; receive its values
    const int up = rank_beside(d, rank, axis, +1);
    const Box send = high_wraps && node_wrap ? slab_of(span, axis, hi - g, hi - 1)
                                             : slab_of(span, axis, hi - g + 1, hi);
    const Box receive = high_wraps && rewrite ? slab_of(span, axis, hi, hi + g)
                                              : slab_of(span, axis, hi + 1, hi + g);
    send_slabs.push_back(send), receive_slabs.push_back(receive);
    outgoing.push_back(Message{up, tag_up(axis), {}});
    incoming.push_back(Message{up, tag_down(axis), {}});
  }
  if (has_low) {
    const int down = rank_beside(d, rank, axis, -1);
    Box send = slab_of(span, axis, lo, lo + g - 1);
    if (low_wraps && node_wrap) send = slab_of(span, axis, rewrite ? lo : lo + 1, lo + g);
    send_slabs.push_back(send), receive_slabs.push_back(slab_of(span, axis, lo - g, lo - 1));
    outgoing.push_back(Message{down, tag_down(axis), {}});
    incoming.push_back(Message{down, tag_up(axis), {}});
  }

  const int ncomp = f.ncomp();
  const Device device = f.device();
  const FieldView<T> v = f.view();
  // One buffer for every message of the axis, sends first, on the field's device.
  std::vector<std::size_t> offset{0};
  for (const Box& b : send_slabs) offset.push_back(offset.back() + std::size_t(b.cells() * ncomp));
  for (const Box& b : receive_slabs)
    offset.push_back(offset.back() + std::size_t(b.cells() * ncomp));
  T* const packed = packing::message_scratch<T>(device, offset.back());
  const std::size_t sends = send_slabs.size();
  for (std::size_t m = 0; m < sends; ++m) {
    T* at = packed + offset[m];
    packing::copy_slab(device, v, send_slabs[m], ncomp, at, true);
    outgoing[m].bytes = std::as_writable_bytes(std::span<T>(at, offset[m + 1] - offset[m]));
  }
  for (std::size_t m = 0; m < incoming.size(); ++m) {
    T* at = packed + offset[sends + m];
    incoming[m].bytes =
        std::as_writable_bytes(std::span<T>(at, offset[sends + m + 1] - offset[sends + m]));
  }
  exchange_over_ranks(device, outgoing, incoming);
  for (std::size_t m = 0; m < incoming.size(); ++m)
    packing::copy_slab(device, v, receive_slabs[m], ncomp, packed + offset[sends + m], false);
}

#define GRIDSOLVE_INSTANTIATE(T)                                                    \
  template bool ghost_face_has_message<T>(const Field<T>&, const GhostSides&, int); \
  template void exchange_ghost_messages<T>(Field<T>&, const GhostSides&, int, const Box&);
GRIDSOLVE_INSTANTIATE(float)
GRIDSOLVE_INSTANTIATE(double)
GRIDSOLVE_INSTANTIATE(std::uint8_t)

}  // namespace gridsolve
