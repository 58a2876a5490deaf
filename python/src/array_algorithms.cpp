// Host arrays to the tridiagonal solvers and the sorting networks, through a GPU's memory
// when the device is cuda.
#include "array_algorithms.hpp"

#include <cstdint>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/solve/tridiag/tridiagonal.hpp"
#include "gridsolve/sort/sort.hpp"

namespace gridsolve {

namespace {

// The values on device d: the host array itself on the CPU, a copy on a GPU.
template <class T>
struct OnDevice {
  Buffer<T> copy;
  T* p = nullptr;
  OnDevice(Device d, T* host, std::size_t n) {
    if (d == Device::cpu) {
      p = host;
      return;
    }
    copy = Buffer<T>(d, n);
    copy_bytes(copy.data(), d, host, Device::cpu, n * sizeof(T));
    p = copy.data();
  }
  void back(Device d, T* host, std::size_t n) const {
    if (d != Device::cpu) copy_bytes(host, Device::cpu, p, d, n * sizeof(T));
  }
};

}  // namespace

template <class T>
void tridiag_on_host(const T* a, const T* b, const T* c, T* d, int n, int count,
                     const std::string& method, const std::string& device) {
  require(n >= 1 && count >= 1, "tridiag: every system needs a row at least");
  const Device dev = select_device(device);
  const std::size_t size = std::size_t(n) * std::size_t(count);
  OnDevice<T> da(dev, const_cast<T*>(a), size), db(dev, const_cast<T*>(b), size),
      dc(dev, const_cast<T*>(c), size), dd(dev, d, size);
  tridiag::Batch<T> batch;
  batch.a = da.p, batch.b = db.p, batch.c = dc.p, batch.d = dd.p;
  batch.n = n, batch.count = count;
  tridiag::Options o;
  o.method = tridiag::parse_method(method);
  tridiag::solve(dev, batch, o);
  dd.back(dev, d, size);
}

template <class K>
void sort_on_host(K* keys, std::size_t count, std::size_t length, const std::string& network,
                  const std::string& order, const std::string& device) {
  const Device dev = select_device(device);
  sort::Options o;
  o.network = sort::parse_network(network);
  o.order = sort::parse_order(order);
  const std::size_t n = count * length;
  OnDevice<K> k(dev, keys, n);
  if (count == 1)
    sort::sort_keys(dev, k.p, k.p, length, o);
  else
    sort::sort_batched_keys(dev, k.p, k.p, count, length, o);
  synchronize(dev);
  k.back(dev, keys, n);
}

template void tridiag_on_host<float>(const float*, const float*, const float*, float*, int, int,
                                     const std::string&, const std::string&);
template void tridiag_on_host<double>(const double*, const double*, const double*, double*, int,
                                      int, const std::string&, const std::string&);
template void sort_on_host<float>(float*, std::size_t, std::size_t, const std::string&,
                                  const std::string&, const std::string&);
template void sort_on_host<double>(double*, std::size_t, std::size_t, const std::string&,
                                   const std::string&, const std::string&);
template void sort_on_host<std::int32_t>(std::int32_t*, std::size_t, std::size_t,
                                         const std::string&, const std::string&,
                                         const std::string&);
template void sort_on_host<std::uint32_t>(std::uint32_t*, std::size_t, std::size_t,
                                          const std::string&, const std::string&,
                                          const std::string&);

}  // namespace gridsolve
