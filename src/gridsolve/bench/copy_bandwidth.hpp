// The copy bandwidth of a device, and the link bandwidth between ranks: the rooflines the
// benchmarks put their kernels and their messages against.
#pragma once
#include <cstddef>

#include "gridsolve/exec/device.hpp"

namespace gridsolve {

// Bytes per second of a copy within device d's memory (read + write counted), the median
// of five copies of `bytes` after one untimed.
double copy_bandwidth(Device d, std::size_t bytes = std::size_t(1) << 30);

// The link between ranks: GB/s one way per rank, large messages to the next rank and from
// the one before at once (by the device link for GPU memory, MPI for host memory); the
// slowest rank's figure. 0 on one rank. Every rank calls it.
double link_bandwidth(Device d);

}  // namespace gridsolve
