// Device helpers shared by the tuned stencil kernels: 16-byte packs and pairs, the warp's
// x halo, and the max-update reduction.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <cub/block/block_reduce.cuh>

namespace gridsolve::tuned::detail {

// Turns run-time flags into compile-time ones: calls f(std::bool_constant<...>...) for
// the values given, so each combination gets its own kernel without a hand-written switch.
template <class F>
void with_flags(F&& f) {
  f();
}
template <class F, class... Rest>
void with_flags(F&& f, bool first, Rest... rest) {
  if (first)
    with_flags([&](auto... tail) { f(std::true_type{}, tail...); }, rest...);
  else
    with_flags([&](auto... tail) { f(std::false_type{}, tail...); }, rest...);
}

// Threads per block: one warp wide in x, four warps (along x in 2D, along y in 3D).
constexpr int warp = 32;
constexpr int warps = 4;

// Elements per 16-byte access: 16-byte loads keep enough bytes in flight per thread to
// cover the memory latency at full bandwidth.
template <class T>
constexpr int pack_width = int(16 / sizeof(T));

template <class T>
struct Pack {
  T v[pack_width<T>];
};

template <class T>
struct Vector16;
template <>
struct Vector16<double> {
  using type = double2;
};
template <>
struct Vector16<float> {
  using type = float4;
};

// Two adjacent elements as one aligned access (a column pair of the fused SOR kernel).
template <class T>
struct Vector2;
template <>
struct Vector2<double> {
  using type = double2;
};
template <>
struct Vector2<float> {
  using type = float2;
};

template <class T>
__device__ __forceinline__ Pack<T> to_pack(const typename Vector16<T>::type& x) {
  Pack<T> p;
  if constexpr (pack_width<T> == 2) {
    p.v[0] = x.x, p.v[1] = x.y;
  } else {
    p.v[0] = x.x, p.v[1] = x.y, p.v[2] = x.z, p.v[3] = x.w;
  }
  return p;
}

// Read-only path: only for arrays no thread of the running kernel writes.
template <class T>
__device__ __forceinline__ Pack<T> load_ro(const T* p) {
  return to_pack<T>(__ldg(reinterpret_cast<const typename Vector16<T>::type*>(p)));
}
template <class T>
__device__ __forceinline__ Pack<T> load(const T* p) {
  return to_pack<T>(*reinterpret_cast<const typename Vector16<T>::type*>(p));
}
template <class T>
__device__ __forceinline__ void store(T* p, const Pack<T>& x) {
  using V = typename Vector16<T>::type;
  V y;
  if constexpr (pack_width<T> == 2) {
    y.x = x.v[0], y.y = x.v[1];
  } else {
    y.x = x.v[0], y.y = x.v[1], y.z = x.v[2], y.w = x.v[3];
  }
  *reinterpret_cast<V*>(p) = y;
}

// The mask bytes of one pack (pack_width bytes, as aligned as the pack's elements).
template <class T>
__device__ __forceinline__ unsigned load_mask(const std::uint8_t* p) {
  if constexpr (pack_width<T> == 2)
    return __ldg(reinterpret_cast<const unsigned short*>(p));
  else
    return __ldg(reinterpret_cast<const unsigned*>(p));
}
__device__ __forceinline__ bool mask_free(unsigned bits, int e) {
  return ((bits >> (8 * e)) & 0xffu) == 0;
}

// Combines each thread's max |update| into *out. Non-negative doubles order like their
// bit patterns, so an integer atomicMax suffices; NaN (all exponent bits) wins, so a
// blown-up iteration is reported, not hidden.
__device__ __forceinline__ void block_max_to(double local, double* out) {
  using Reduce = cub::BlockReduce<double, warp, cub::BLOCK_REDUCE_WARP_REDUCTIONS, warps>;
  __shared__ typename Reduce::TempStorage tmp;
  const double m =
      Reduce(tmp).Reduce(local, [](double a, double b) { return (a > b || a != a) ? a : b; });
  if (threadIdx.x == 0 && threadIdx.y == 0 && !(m <= 0))
    atomicMax(reinterpret_cast<unsigned long long*>(out),
              static_cast<unsigned long long>(__double_as_longlong(m)));
}

__device__ __forceinline__ double abs_diff(double a, double b) {
  return fabs(a - b);
}

inline unsigned blocks_for(long long work, int per_block, long long cap = 65535) {
  const long long b = (work + per_block - 1) / per_block;
  return unsigned(b < 1 ? 1 : (b > cap ? cap : b));
}

}  // namespace gridsolve::tuned::detail
