// Raw memory on either device: allocation, copies and fills, with failures as Error.
#pragma once
#include <cstddef>
#include <memory>

#include "gridsolve/exec/device.hpp"

namespace gridsolve {

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
