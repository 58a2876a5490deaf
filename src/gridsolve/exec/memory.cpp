// Raw memory on either device, and how much of it this process may still take.
#include "gridsolve/exec/memory.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <unordered_map>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/field_view.hpp"
#include "gridsolve/core/grid.hpp"

#if GRIDSOLVE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace gridsolve {

namespace {
// Sizes of live device allocations, for the in-use and peak figures.
std::mutex allocations_mutex;
std::unordered_map<void*, std::size_t> allocations;
std::size_t bytes_in_use = 0, bytes_peak = 0;

std::string gib(std::size_t bytes) {
  return format_bytes(bytes);
}

constexpr std::size_t unlimited = std::numeric_limits<std::size_t>::max();

// Reads a small text file (procfs, cgroupfs) into `buf` without allocating: this runs
// inside operator new.
std::size_t read_small_file(const char* path, char* buf, std::size_t size) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::size_t got = 0;
  while (got + 1 < size) {
    const ssize_t n = ::read(fd, buf + got, size - 1 - got);
    if (n <= 0) break;
    got += std::size_t(n);
  }
  ::close(fd);
  buf[got] = 0;
  return got;
}

// The number after `key` in `text` ("MemAvailable:   22597440 kB"), or `unlimited`.
std::size_t number_after(const char* text, const char* key) {
  const char* at = std::strstr(text, key);
  if (!at) return unlimited;
  at += std::strlen(key);
  while (*at == ' ' || *at == '\t' || *at == ':') ++at;
  if (*at < '0' || *at > '9') return unlimited;  // "max" in cgroup v2
  return std::strtoull(at, nullptr, 10);
}

std::size_t file_number(const char* path) {
  char buf[64];
  if (read_small_file(path, buf, sizeof buf) == 0) return unlimited;
  return number_after(buf, "");
}

// limit - usage of a cgroup folder (v2 names, then v1 names), or `unlimited`.
std::size_t cgroup_room(const char* limit_path, const char* usage_path) {
  const std::size_t limit = file_number(limit_path);
  if (limit == unlimited || limit >= (std::size_t(1) << 60)) return unlimited;
  const std::size_t usage = file_number(usage_path);
  if (usage == unlimited) return limit;
  return limit > usage ? limit - usage : 0;
}

#if GRIDSOLVE_HAVE_CUDA
void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw Error(fmt::format("CUDA {} failed: {}", what, cudaGetErrorString(err)),
                Error::Kind::runtime);
  }
}
cudaMemcpyKind kind_of(Device dst, Device src) {
  if (dst == Device::cuda && src == Device::cuda) return cudaMemcpyDeviceToDevice;
  if (dst == Device::cuda) return cudaMemcpyHostToDevice;
  if (src == Device::cuda) return cudaMemcpyDeviceToHost;
  return cudaMemcpyHostToHost;
}
#endif
}  // namespace

std::string format_bytes(std::size_t bytes) {
  if (bytes >= (std::size_t(1) << 30)) return fmt::format("{:.3f} GiB", bytes / 1073741824.0);
  return fmt::format("{:.1f} MiB", bytes / 1048576.0);
}

std::size_t host_memory_available() {
  std::size_t room = unlimited;
  char buf[4096];
  if (read_small_file("/proc/meminfo", buf, sizeof buf) > 0) {
    const std::size_t kib = number_after(buf, "MemAvailable:");
    if (kib != unlimited) room = kib * 1024;
  }
  // A container sees its own cgroup at the root of these folders.
  room = std::min(room, cgroup_room("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"));
  room = std::min(room, cgroup_room("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes"));
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    std::size_t mapped = 0;
    if (read_small_file("/proc/self/statm", buf, sizeof buf) > 0)
      mapped = std::strtoull(buf, nullptr, 10) * std::size_t(::sysconf(_SC_PAGESIZE));
    room = std::min(room, as.rlim_cur > mapped ? std::size_t(as.rlim_cur - mapped) : 0);
  }
  return room;
}

std::size_t device_memory_available() {
#if GRIDSOLVE_HAVE_CUDA
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return free_b;
#else
  return 0;
#endif
}

std::size_t memory_available(Device d) {
  return d == Device::cuda ? device_memory_available() : host_memory_available();
}

void require_memory(Device d, std::size_t bytes, const std::string& what) {
  const std::size_t room = memory_available(d);
  if (bytes <= room) return;
  throw Error(fmt::format("{} needs about {} of {} memory; {} is available. Use a coarser grid{}",
                          what, format_bytes(bytes), d == Device::cuda ? "GPU" : "host",
                          format_bytes(room),
                          d == Device::cuda ? " or the CPU" : " or a machine with more memory"));
}

std::size_t grid_fields_bytes(const Grid& g, std::size_t value_bytes, int fields) {
  const Layout l = Layout::make(g.n, g.dims, value_bytes);
  const double bytes = double(l.size) * double(value_bytes) * double(fields);
  return bytes >= double(unlimited) ? unlimited : std::size_t(bytes);
}

void require_solve_memory(const Grid& g, std::size_t value_bytes, Device d,
                          int coefficient_fields) {
  const std::size_t fields = grid_fields_bytes(g, value_bytes, 3 + coefficient_fields);
  const std::size_t marks = grid_fields_bytes(g, 1, 1);
  const std::size_t bytes = fields > unlimited - marks ? unlimited : fields + marks;
  std::string nodes;
  for (int a = 0; a < g.dims; ++a) nodes += fmt::format("{}{}", a ? " x " : "", g.n[a]);
  require_memory(d, bytes, fmt::format("a solve on {} nodes", nodes));
}

HostOutOfMemory::HostOutOfMemory(std::size_t bytes) : bytes_(bytes) {
  // Built only when an allocation failed; with memory this short the message may itself
  // not fit, and then the size alone has to do.
  try {
    message_ = fmt::format("out of host memory: an allocation of {} did not fit ({} available)",
                           format_bytes(bytes), format_bytes(host_memory_available()));
  } catch (...) {
  }
}

void* allocate_host_checked(std::size_t bytes, std::size_t alignment) {
  if (bytes >= (std::size_t(64) << 20) && bytes > host_memory_available())
    throw HostOutOfMemory(bytes);
  void* p = nullptr;
  if (alignment > alignof(std::max_align_t)) {
    if (::posix_memalign(&p, alignment, bytes ? bytes : 1) != 0) p = nullptr;
  } else {
    p = std::malloc(bytes ? bytes : 1);
  }
  if (!p) throw HostOutOfMemory(bytes);
  return p;
}

std::string describe_allocation_failure(const std::bad_alloc& e) {
  if (const auto* h = dynamic_cast<const HostOutOfMemory*>(&e); h && *h->what()) return h->what();
  return fmt::format("out of host memory ({}; {} available)", e.what(),
                     format_bytes(host_memory_available()));
}

void* allocate_bytes(Device d, std::size_t bytes) {
  if (d == Device::cuda) {
#if GRIDSOLVE_HAVE_CUDA
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes);
    if (err != cudaSuccess) {
      cudaGetLastError();
      std::size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      // The problem is too large for this device: the user's to change (exit code 2).
      throw Error(
          fmt::format("out of GPU memory: asked for {}, {} free of {} ({}); use a "
                      "coarser grid or the CPU",
                      gib(bytes), gib(free_b), gib(total_b), cudaGetErrorString(err)));
    }
    {
      std::lock_guard<std::mutex> lock(allocations_mutex);
      allocations[p] = bytes;
      bytes_in_use += bytes;
      bytes_peak = std::max(bytes_peak, bytes_in_use);
    }
    return p;
#else
    throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
  }
  // 256-byte alignment keeps padded rows aligned for vector loads.
  const std::size_t rounded = (bytes + 255) / 256 * 256;
  const std::size_t room = rounded >= (std::size_t(64) << 20) ? host_memory_available() : unlimited;
  void* p = rounded <= room ? std::aligned_alloc(256, rounded) : nullptr;
  if (!p)
    throw Error(fmt::format("out of host memory: asked for {}, {} available; use a coarser grid",
                            gib(bytes), gib(room == unlimited ? host_memory_available() : room)));
  return p;
}

void free_bytes(Device d, void* p) noexcept {
  if (!p) return;
  if (d == Device::cuda) {
#if GRIDSOLVE_HAVE_CUDA
    cudaFree(p);
    std::lock_guard<std::mutex> lock(allocations_mutex);
    const auto it = allocations.find(p);
    if (it != allocations.end()) {
      bytes_in_use -= it->second;
      allocations.erase(it);
    }
#endif
    return;
  }
  std::free(p);
}

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device,
                std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_device == Device::cpu && src_device == Device::cpu) {
    std::memcpy(dst, src, bytes);
    return;
  }
#if GRIDSOLVE_HAVE_CUDA
  check(cudaMemcpy(dst, src, bytes, kind_of(dst_device, src_device)), "memcpy");
#else
  throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
}

void zero_bytes(Device d, void* p, std::size_t bytes) {
  if (bytes == 0) return;
  if (d == Device::cpu) {
    std::memset(p, 0, bytes);
    return;
  }
#if GRIDSOLVE_HAVE_CUDA
  // On the exec stream, so a recorded sequence of launches (LaunchRecording) may hold it.
  check(cudaMemsetAsync(p, 0, bytes, cudaStreamPerThread), "memset");
#endif
}

std::size_t device_bytes_in_use() {
  std::lock_guard<std::mutex> lock(allocations_mutex);
  return bytes_in_use;
}

std::size_t device_bytes_peak() {
  std::lock_guard<std::mutex> lock(allocations_mutex);
  return bytes_peak;
}

std::string describe_gpu_peak(double peak_bytes, double cells, int ranks) {
  return fmt::format("at most {:.2f} GiB on {} ({:.0f} bytes a cell{})", peak_bytes / 1073741824.0,
                     ranks > 1 ? "the fullest rank" : "the GPU", peak_bytes / (cells / ranks),
                     ranks > 1 ? " of its share" : "");
}

void reset_device_bytes_peak() {
  std::lock_guard<std::mutex> lock(allocations_mutex);
  bytes_peak = bytes_in_use;
}

void synchronize(Device d) {
#if GRIDSOLVE_HAVE_CUDA
  if (d == Device::cuda) check(cudaDeviceSynchronize(), "kernel execution");
#else
  (void)d;
#endif
}

}  // namespace gridsolve
