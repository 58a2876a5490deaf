// gather_parts_everywhere: each rank's valid box packed once and sent to every other rank
// in one exchange, each received box unpacked into the whole field, on the field's device.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device_link.hpp"
#include "gridsolve/exec/field_part.hpp"
#include "gridsolve/exec/packed_slab.hpp"
#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve {

template <class T>
void gather_parts_everywhere(const Field<T>& part, Field<T>& whole) {
  const Decomposition& parts = *part.decomposition();
  const Communicator& comm = Communicator::world();
  const Device d = part.device();
  const int ncomp = part.ncomp(), me = part.rank();
  require(whole.device() == d && whole.ncomp() == ncomp && holds_global_box(whole, parts),
          "parts gather into a field of the decomposition's global box on their device");
  require(parts.ranks() == comm.size(), "a field split over " + std::to_string(parts.ranks()) +
                                            " ranks in a run of " + std::to_string(comm.size()));
  const Box own = part.interior();
  const FieldView<const T> from = part.cview();
  const FieldView<T> to = whole.view();
  for_each(d, own, [=] GRIDSOLVE_HD(int i, int j, int k) {
    for (int c = 0; c < ncomp; ++c) to(i, j, k, c) = from(i, j, k, c);
  });
  if (parts.ranks() == 1) return;
  // One buffer: this rank's box (sent to every other rank), then each other rank's box.
  std::vector<std::size_t> offset{0, std::size_t(own.cells()) * std::size_t(ncomp)};
  for (int r = 0; r < parts.ranks(); ++r)
    if (r != me) offset.push_back(offset.back() + std::size_t(parts.box(r).cells()) * ncomp);
  T* const buffer = packing::message_scratch<T>(d, offset.back());
  // Packing only reads the part; copy_slab takes the one view type for both directions.
  packing::copy_slab(d, const_cast<Field<T>&>(part).view(), own, ncomp, buffer, true);
  const auto sent = std::as_writable_bytes(std::span<T>(buffer, offset[1]));
  constexpr int tag = 6;  // beside the ghost messages' 0..5
  std::vector<Message> outgoing, incoming;
  std::vector<Box> boxes;
  for (int r = 0, m = 1; r < parts.ranks(); ++r) {
    if (r == me) continue;
    outgoing.push_back(Message{r, tag, sent});
    incoming.push_back(Message{
        r, tag,
        std::as_writable_bytes(std::span<T>(buffer + offset[std::size_t(m)],
                                            offset[std::size_t(m) + 1] - offset[std::size_t(m)]))});
    boxes.push_back(parts.box(r));
    ++m;
  }
  exchange_over_ranks(d, outgoing, incoming);
  for (std::size_t m = 0; m < boxes.size(); ++m)
    packing::copy_slab(d, to, boxes[m], ncomp, buffer + offset[m + 1], false);
}

template void gather_parts_everywhere(const Field<float>&, Field<float>&);
template void gather_parts_everywhere(const Field<double>&, Field<double>&);
template void gather_parts_everywhere(const Field<std::uint8_t>&, Field<std::uint8_t>&);

}  // namespace gridsolve
