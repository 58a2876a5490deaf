// The fused column pass (demag_column_pass.hpp): one block per x frequency loads the
// columns of M_x, M_y (then M_z) from the rows that hold cells, transforms them along y
// with the Stockham butterflies in shared memory, multiplies by the tensor, transforms
// back and stores only the rows the inverse x transform keeps. Compared with the y passes
// of cuFFT, the padded half of each column is neither read nor written, and the spectrum
// never goes to memory between the transforms and the product.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>

#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/transform/demag_column_pass.hpp"
#include "gridsolve/transform/stockham_fft.hpp"

namespace gridsolve::demag {

namespace {

constexpr int max_threads = 512;

struct PassPlan {
  int count;
  int radix[32];
};

// The column in `data` transformed; the result is in the returned buffer, the other of
// (data, scratch) is free afterwards.
template <class T>
__device__ Cx<T>* column_fft(Cx<T>* data, Cx<T>* scratch, int n, const PassPlan& p, const Cx<T>* tw,
                             int sign) {
  Cx<T>* src = data;
  Cx<T>* dst = scratch;
  int ns = 1;
  for (int s = 0; s < p.count; ++s) {
    const int r = p.radix[s];
    for (int j = threadIdx.x; j < n / r; j += blockDim.x)
      stockham_butterfly(r, j, n, ns, src, dst, tw, sign);
    __syncthreads();
    Cx<T>* t = src;
    src = dst;
    dst = t;
    ns *= r;
  }
  return src;
}

template <class T>
__device__ void load_column(Cx<T>* col, const T* rows, std::int64_t pitch, int kx, int ny, int py) {
  const Cx<T>* src = reinterpret_cast<const Cx<T>*>(rows);
  for (int j = threadIdx.x; j < py; j += blockDim.x)
    col[j] = j < ny ? src[std::int64_t(j) * pitch + kx] : Cx<T>{T(0), T(0)};
}

template <class T>
__device__ void store_column(T* rows, const Cx<T>* col, std::int64_t pitch, int kx, int ny) {
  Cx<T>* dst = reinterpret_cast<Cx<T>*>(rows);
  for (int j = threadIdx.x; j < ny; j += blockDim.x) dst[std::int64_t(j) * pitch + kx] = col[j];
}

template <class T>
__global__ void __launch_bounds__(max_threads)
    column_pass_kernel(ColumnPassArgs<T> a, PassPlan plan) {
  extern __shared__ unsigned char shared_bytes[];
  Cx<T>* buf = reinterpret_cast<Cx<T>*>(shared_bytes);
  const int kx = blockIdx.x, py = a.py, hx = a.hx;
  const Cx<T>* tw = reinterpret_cast<const Cx<T>*>(a.twiddle);
  const std::int64_t comp = std::int64_t(py / 2 + 1) * hx;  // one tensor component
  const T* K = a.kernel;
  // x and y together (the product couples them), z alone; three columns of shared memory.
  Cx<T>* cx = buf;
  Cx<T>* cy = buf + py;
  Cx<T>* spare = buf + 2 * py;
  load_column(cx, a.rows[0], a.pitch, kx, a.ny, py);
  load_column(cy, a.rows[1], a.pitch, kx, a.ny, py);
  __syncthreads();
  Cx<T>* fx = column_fft(cx, spare, py, plan, tw, -1);
  spare = fx == cx ? spare : cx;
  Cx<T>* fy = column_fft(cy, spare, py, plan, tw, -1);
  spare = fy == cy ? spare : cy;
  for (int ky = threadIdx.x; ky < py; ky += blockDim.x) {
    const bool flip = 2 * ky > py;
    const std::int64_t r = std::int64_t(flip ? py - ky : ky) * hx + kx;
    const T kxx = K[r], kyy = K[comp + r], kxy = flip ? -K[3 * comp + r] : K[3 * comp + r];
    const Cx<T> mx = fx[ky], my = fy[ky];
    fx[ky] = scale(mx, kxx) + scale(my, kxy);
    fy[ky] = scale(mx, kxy) + scale(my, kyy);
  }
  __syncthreads();
  Cx<T>* hxc = column_fft(fx, spare, py, plan, tw, 1);
  spare = hxc == fx ? spare : fx;
  Cx<T>* hyc = column_fft(fy, spare, py, plan, tw, 1);
  store_column(a.rows[0], hxc, a.pitch, kx, a.ny);
  store_column(a.rows[1], hyc, a.pitch, kx, a.ny);
  __syncthreads();
  // z: H_z = K_zz M_z in a single layer.
  Cx<T>* cz = buf;
  load_column(cz, a.rows[2], a.pitch, kx, a.ny, py);
  __syncthreads();
  Cx<T>* fz = column_fft(cz, buf + py, py, plan, tw, -1);
  for (int ky = threadIdx.x; ky < py; ky += blockDim.x) {
    const bool flip = 2 * ky > py;
    const std::int64_t r = std::int64_t(flip ? py - ky : ky) * hx + kx;
    fz[ky] = scale(fz[ky], K[2 * comp + r]);
  }
  __syncthreads();
  Cx<T>* hz = column_fft(fz, fz == buf ? buf + py : buf, py, plan, tw, 1);
  store_column(a.rows[2], hz, a.pitch, kx, a.ny);
}

int shared_limit() {
  int dev = 0, bytes = 0;
  cuda::check(cudaGetDevice(&dev), "cudaGetDevice");
  cuda::check(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
              "shared memory limit");
  return bytes;
}

}  // namespace

template <class T>
bool column_pass_fits(const Layout& l) {
  if (!l.thin() || l.p[1] < 2) return false;
  if (!StockhamPlan::make(l.p[1]).valid()) return false;
  return 3 * std::int64_t(l.p[1]) * std::int64_t(sizeof(Cx<T>)) <= shared_limit();
}

template <class T>
void run_column_pass(const ColumnPassArgs<T>& a) {
  const StockhamPlan sp = StockhamPlan::make(a.py);
  PassPlan plan{};
  plan.count = sp.count;
  for (int s = 0; s < sp.count; ++s) plan.radix[s] = sp.radix[s];
  const int bytes = int(3 * std::int64_t(a.py) * sizeof(Cx<T>));
  static int configured = 0;  // the largest shared size requested so far
  if (bytes > 48 * 1024 && bytes > configured) {
    cuda::check(cudaFuncSetAttribute(column_pass_kernel<T>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
                "column pass shared memory");
    configured = bytes;
  }
  // One butterfly per thread in a radix-8 pass, in whole warps.
  const int threads = std::min(max_threads, std::max(32, (a.py / 8 + 31) / 32 * 32));
  column_pass_kernel<T><<<a.hx, threads, bytes>>>(a, plan);
  cuda::check(cudaGetLastError(), "column pass launch");
}

template bool column_pass_fits<float>(const Layout&);
template bool column_pass_fits<double>(const Layout&);
template void run_column_pass<float>(const ColumnPassArgs<float>&);
template void run_column_pass<double>(const ColumnPassArgs<double>&);

}  // namespace gridsolve::demag
