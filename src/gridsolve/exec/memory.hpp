// Raw memory on either device: allocation, copies and fills, with failures as Error.
#pragma once
#include <cstddef>
#include <memory>
#include <new>
#include <string>

#include "gridsolve/exec/device.hpp"

namespace gridsolve {

struct Grid;

// Bytes this process can still take: on the host the least of MemAvailable
// (/proc/meminfo), the cgroup's limit minus its usage (v2 and v1) and the address-space
// limit (ulimit -v) minus what is mapped; on the GPU the free memory (cudaMemGetInfo).
std::size_t host_memory_available();
std::size_t device_memory_available();
std::size_t memory_available(Device d);

// "1.234 GiB".
std::string format_bytes(std::size_t bytes);

// Throws Error (invalid_input: the problem is too large for this machine, exit code 2)
// when `bytes` exceed memory_available(d): "<what> needs about X of <host|GPU> memory;
// Y is available". Call it before allocating, with an estimate of the whole job.
void require_memory(Device d, std::size_t bytes, const std::string& what);

// The bytes of `fields` fields of `value_bytes`-byte values on `g` as Field lays them
// out (ghosts and row padding included); saturates instead of overflowing.
std::size_t grid_fields_bytes(const Grid& g, std::size_t value_bytes, int fields);

// Refuses (as require_memory) a solve on `g` that cannot fit on `d`: the least any
// solver needs is the solution, the right-hand side and one work field of
// `value_bytes` values, plus a byte per node for the node kinds, plus
// `coefficient_fields` fields of per-node operator coefficients (2 dims + 1 for a
// variable-coefficient stencil, when the caller knows it will have one). A solve that
// passes may still run out later (multigrid and Krylov workspaces); then the allocation
// that failed says so with its size.
void require_solve_memory(const Grid& g, std::size_t value_bytes, Device d,
                          int coefficient_fields = 0);

// A host allocation that did not fit, with its size (std::bad_alloc says neither).
class HostOutOfMemory : public std::bad_alloc {
 public:
  explicit HostOutOfMemory(std::size_t bytes);
  const char* what() const noexcept override { return message_.c_str(); }
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_;
  std::string message_;
};

// malloc for operator new: requests of 64 MiB or more are checked against
// host_memory_available() first (an allocation that exceeds it would be granted by the
// kernel's overcommit and end the process when touched), and failure throws
// HostOutOfMemory naming the size.
void* allocate_host_checked(std::size_t bytes, std::size_t alignment = 0);

// The message for an allocation failure: HostOutOfMemory's, or a generic one.
std::string describe_allocation_failure(const std::bad_alloc& e);

void* allocate_bytes(Device d, std::size_t bytes);
void free_bytes(Device d, void* p) noexcept;
void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device,
                std::size_t bytes);
void zero_bytes(Device d, void* p, std::size_t bytes);
// Waits for all queued device work; surfaces asynchronous CUDA errors as Error.
void synchronize(Device d);

// GPU memory held by gridsolve now and at most since the start (or the last reset),
// in bytes; reports quote it so users can size their problems.
std::size_t device_bytes_in_use();
std::size_t device_bytes_peak();
void reset_device_bytes_peak();
// "at most 1.23 GiB on the GPU (456 bytes a cell)": a run's peak (on `ranks` ranks, the
// fullest rank's, per cell of its share) as reports print it.
std::string describe_gpu_peak(double peak_bytes, double cells, int ranks);

// A typed owning buffer on one device.
template <class T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(Device d, std::size_t count) : device_(d), count_(count) {
    if (count) data_ = static_cast<T*>(allocate_bytes(d, count * sizeof(T)));
  }
  ~Buffer() { reset(); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept { swap(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      reset();
      swap(o);
    }
    return *this;
  }
  void swap(Buffer& o) noexcept {
    std::swap(device_, o.device_);
    std::swap(count_, o.count_);
    std::swap(data_, o.data_);
  }
  void reset() noexcept {
    if (data_) free_bytes(device_, data_);
    data_ = nullptr;
    count_ = 0;
  }
  T* data() const { return data_; }
  std::size_t size() const { return count_; }
  Device device() const { return device_; }

 private:
  Device device_ = Device::cpu;
  std::size_t count_ = 0;
  T* data_ = nullptr;
};

}  // namespace gridsolve
