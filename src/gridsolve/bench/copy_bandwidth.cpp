// copy_bandwidth: timed copies between two buffers of one device.
#include "gridsolve/bench/copy_bandwidth.hpp"

#include "gridsolve/bench/host_timing.hpp"
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

}  // namespace gridsolve
