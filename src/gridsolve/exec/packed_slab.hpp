// Packed slabs: a box of a field's values copied to or from one contiguous buffer on the
// field's device (what travels between ranks), and the buffer kept between messages.
#pragma once
#include <cstddef>
#include <cstdint>

#include "gridsolve/exec/field.hpp"

namespace gridsolve::packing {

// Copies the slab's values into `packed` (pack) or back (unpack), component after
// component, x fastest: the order both ends of a message agree on. Runs on the field's
// device.
template <class T>
void copy_slab(Device d, const FieldView<T>& v, const Box& slab, int ncomp, T* packed, bool pack);

// The bytes of the messages of one exchange, kept between exchanges (one block per device
// and host thread, grown on demand): allocating device memory for every exchange would
// cost more than the messages, and freeing it would wait for the whole device. Work queued
// on the exec stream runs in order, so the next exchange's packing waits for this one's
// unpack.
template <class T>
T* message_scratch(Device d, std::size_t count);

}  // namespace gridsolve::packing
