// Arrays to the tridiagonal solvers and the sorting networks: host arrays on the CPU or
// through a GPU's memory, device arrays in place.
#include "array_algorithms.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/solve/tridiag/tridiagonal.hpp"
#include "gridsolve/sort/sort.hpp"

namespace gridsolve {

namespace {

// The values on device d: the array itself where it already lives there, a copy otherwise.
template <class T>
struct OnDevice {
  Buffer<T> copy;
  T* p = nullptr;
  Device where = Device::cpu;
  OnDevice(Device d, T* array, Device w, std::size_t n) : where(w) {
    if (d == where) {
      p = array;
      return;
    }
    copy = Buffer<T>(d, n);
    copy_bytes(copy.data(), d, array, where, n * sizeof(T));
    p = copy.data();
  }
  void back(Device d, T* array, std::size_t n) const {
    if (d != where) copy_bytes(array, where, p, d, n * sizeof(T));
  }
};

// The device an algorithm runs on: the one asked for, and for arrays in a GPU's memory that
// GPU. Their producer's queued work (CuPy's, PyTorch's streams) is waited for first: the
// library's kernels do not run on its streams.
Device run_device(Device where, const std::string& device) {
  if (where == Device::cpu) return select_device(device);
  require(device == "cuda" || device == "auto",
          fmt::format("arrays in a GPU's memory run on that GPU: device must be 'cuda' or "
                      "'auto', got '{}'",
                      device));
  const Device d = select_device("cuda");
  synchronize(d);
  return d;
}

}  // namespace

template <class T>
void tridiag_arrays(const T* a, const T* b, const T* c, T* d, int n, int count, Device where,
                    const std::string& method, const std::string& device) {
  require(n >= 1 && count >= 1, "tridiag: every system needs a row at least");
  const Device dev = run_device(where, device);
  const std::size_t size = std::size_t(n) * std::size_t(count);
  OnDevice<T> da(dev, const_cast<T*>(a), where, size), db(dev, const_cast<T*>(b), where, size),
      dc(dev, const_cast<T*>(c), where, size), dd(dev, d, where, size);
  tridiag::Batch<T> batch;
  batch.a = da.p, batch.b = db.p, batch.c = dc.p, batch.d = dd.p;
  batch.n = n, batch.count = count;
  tridiag::Options o;
  o.method = tridiag::parse_method(method);
  tridiag::solve(dev, batch, o);
  synchronize(dev);
  dd.back(dev, d, size);
}

template <class K>
void sort_arrays(K* keys, std::size_t count, std::size_t length, Device where,
                 const std::string& network, const std::string& order, const std::string& device) {
  const Device dev = run_device(where, device);
  sort::Options o;
  o.network = sort::parse_network(network);
  o.order = sort::parse_order(order);
  const std::size_t n = count * length;
  OnDevice<K> k(dev, keys, where, n);
  if (count == 1)
    sort::sort_keys(dev, k.p, k.p, length, o);
  else
    sort::sort_batched_keys(dev, k.p, k.p, count, length, o);
  synchronize(dev);
  k.back(dev, keys, n);
}

template void tridiag_arrays<float>(const float*, const float*, const float*, float*, int, int,
                                    Device, const std::string&, const std::string&);
template void tridiag_arrays<double>(const double*, const double*, const double*, double*, int, int,
                                     Device, const std::string&, const std::string&);
template void sort_arrays<float>(float*, std::size_t, std::size_t, Device, const std::string&,
                                 const std::string&, const std::string&);
template void sort_arrays<double>(double*, std::size_t, std::size_t, Device, const std::string&,
                                  const std::string&, const std::string&);
template void sort_arrays<std::int32_t>(std::int32_t*, std::size_t, std::size_t, Device,
                                        const std::string&, const std::string&, const std::string&);
template void sort_arrays<std::uint32_t>(std::uint32_t*, std::size_t, std::size_t, Device,
                                         const std::string&, const std::string&,
                                         const std::string&);

}  // namespace gridsolve
