// copy_bandwidth: timed copies between two buffers of one device.
#include "gridsolve/bench/copy_bandwidth.hpp"

#include <span>

#include "gridsolve/bench/host_timing.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device_link.hpp"
#include "gridsolve/exec/memory.hpp"

namespace gridsolve {

double copy_bandwidth(Device d, std::size_t bytes) {
  Buffer<char> a(d, bytes), b(d, bytes);
  zero_bytes(d, a.data(), bytes);
  zero_bytes(d, b.data(), bytes);
  const double ms = bench::median_ms(
      5,
      [&] {
        copy_bytes(b.data(), d, a.data(), d, bytes);
        synchronize(d);
      },
      [&] { synchronize(d); });
  return 2.0 * double(bytes) / (ms * 1e-3);  // read + write
}

double link_bandwidth(Device d) {
  const Communicator& comm = Communicator::world();
  if (comm.size() == 1) return 0;
  // Large enough that latency is a small share (the host's shared memory needs less).
  const std::size_t bytes = std::size_t(d == Device::cpu ? 32 : 256) << 20;
  Buffer<std::byte> out(d, bytes), in(d, bytes);
  zero_bytes(d, out.data(), bytes);
  const int next = (comm.rank() + 1) % comm.size();
  const int previous = (comm.rank() + comm.size() - 1) % comm.size();
  const Message send{next, 0, std::span<std::byte>(out.data(), bytes)};
  const Message receive{previous, 0, std::span<std::byte>(in.data(), bytes)};
  auto once = [&] {
    if (d == Device::cpu)
      comm.exchange(std::span<const Message>(&send, 1), std::span<const Message>(&receive, 1));
    else
      DeviceLink::world().exchange(std::span<const Message>(&send, 1),
                                   std::span<const Message>(&receive, 1));
  };
  const double ms = bench::median_ms(
      5,
      [&] {
        for (int r = 0; r < 4; ++r) once();
        synchronize(d);
      },
      [&] {
        synchronize(d);
        comm.barrier();
      });
  return comm.min(4.0 * double(bytes) / (ms * 1e6));
}

}  // namespace gridsolve
