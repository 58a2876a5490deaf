// Packed slabs: the copy loop (one definition, built by the CUDA compiler: its body is a
// device lambda) and the kept message buffer.
#include "gridsolve/exec/packed_slab.hpp"

#include "gridsolve/exec/memory.hpp"
#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve::packing {

template <class T>
void copy_slab(Device d, const FieldView<T>& v, const Box& slab, int ncomp, T* packed, bool pack) {
  const std::int64_t nx = slab.extent(0), ny = slab.extent(1), nz = slab.extent(2);
  const Box s = slab;
  for_each(d, slab, [=] GRIDSOLVE_HD(int i, int j, int k) {
    const std::int64_t at = (i - s.lo[0]) + nx * ((j - s.lo[1]) + ny * std::int64_t(k - s.lo[2]));
    for (int c = 0; c < ncomp; ++c) {
      T& x = v(i, j, k, c);
      T& p = packed[at + nx * ny * nz * c];
      if (pack)
        p = x;
      else
        x = p;
    }
  });
}

template <class T>
T* message_scratch(Device d, std::size_t count) {
  thread_local Buffer<std::byte> kept[2];
  Buffer<std::byte>& b = kept[d == Device::cpu ? 0 : 1];
  if (b.size() < count * sizeof(T)) {
    b.reset();  // freeing device memory waits for what is queued on it
    b = Buffer<std::byte>(d, count * sizeof(T));
  }
  return reinterpret_cast<T*>(b.data());
}

#define GRIDSOLVE_INSTANTIATE(T)                                                      \
  template void copy_slab<T>(Device, const FieldView<T>&, const Box&, int, T*, bool); \
  template T* message_scratch<T>(Device, std::size_t);
GRIDSOLVE_INSTANTIATE(float)
GRIDSOLVE_INSTANTIATE(double)
GRIDSOLVE_INSTANTIATE(std::uint8_t)

}  // namespace gridsolve::packing
