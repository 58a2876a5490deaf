// The copy bandwidth of a device: the roofline the benchmarks put their kernels against.
#pragma once
#include <cstddef>

#include "gridsolve/exec/device.hpp"

namespace gridsolve {

// Bytes per second of a copy within device d's memory (read + write counted), the median
// of five copies of `bytes` after one untimed.
double copy_bandwidth(Device d, std::size_t bytes = std::size_t(1) << 30);

}  // namespace gridsolve
