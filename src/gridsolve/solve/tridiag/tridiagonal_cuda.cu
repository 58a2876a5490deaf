// GPU tridiagonal solves: Thomas per thread, CR / PCR / CR-PCR per block in shared
// memory, and partitioned elimination (recursive) for systems too long for one block.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/solve/tridiag/cyclic_reduction.hpp"
#include "gridsolve/solve/tridiag/partitioned.hpp"
#include "gridsolve/solve/tridiag/thomas.hpp"
#include "gridsolve/solve/tridiag/tridiagonal_cpu.hpp"

namespace gridsolve::tridiag {

namespace {

using Flag = unsigned long long;
constexpr Flag no_failure = ~Flag(0);

// Grow-only device scratch, one slot per use, kept for the process lifetime so that
// repeated solves allocate nothing.
void* scratch(int slot, std::size_t bytes) {
  static std::mutex m;
  static Buffer<char> slots[8];
  std::lock_guard<std::mutex> lock(m);
  if (slots[slot].size() < bytes) slots[slot] = Buffer<char>(Device::cuda, bytes);
  return slots[slot].data();
}

__device__ void record(Flag* flag, std::int64_t where) { atomicMin(flag, Flag(where)); }

template <class T>
__global__ void thomas_kernel(Batch<T> bt, T* cp, Flag* flag) {
  const int s = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (s >= bt.count) return;
  const std::int64_t base = s * bt.system_stride();
  const int r = thomas(bt.n, bt.a + base, bt.b + base, bt.c + base, bt.d + base, cp + base, bt.row_stride());
  if (r >= 0) record(flag, std::int64_t(s) * bt.n + r);
}

// One block per system, the whole system in shared memory (coalesced loads and
// stores). CR halves the active rows until at most `pcr_rows` remain (one per thread),
// PCR solves those in log2 steps from registers, and CR back substitution fills in.
// pcr_rows = 1 is plain CR; pcr_rows >= n is plain PCR.
template <class T>
__global__ void cr_pcr_kernel(Batch<T> bt, int pcr_rows, Flag* flag) {
  extern __shared__ unsigned char smem_raw[];
  T* sm = reinterpret_cast<T*>(smem_raw);
  const int n = bt.n, tid = int(threadIdx.x), nt = int(blockDim.x);
  const int sys = int(blockIdx.x);
  T *a = sm, *b = sm + n, *c = sm + 2 * n, *d = sm + 3 * n;
  const std::int64_t base = sys * bt.system_stride(), rs = bt.row_stride();
  for (int i = tid; i < n; i += nt) {
    const std::int64_t o = base + i * rs;
    a[i] = i > 0 ? bt.a[o] : T(0);
    b[i] = bt.b[o];
    c[i] = i + 1 < n ? bt.c[o] : T(0);
    d[i] = bt.d[o];
    if (!pivot_ok(b[i], abs_of(b[i]))) record(flag, std::int64_t(sys) * n + i);
  }
  __syncthreads();
  int s = 1;
  while (n / s > pcr_rows) {
    for (int j = 2 * s - 1 + 2 * s * tid; j < n; j += 2 * s * nt)
      if (!cr_eliminate(a, b, c, d, j, s, n)) record(flag, std::int64_t(sys) * n + j);
    __syncthreads();
    s *= 2;
  }
  const int na = n / s;  // active rows j = (t + 1) s - 1
  const int j = (tid + 1) * s - 1;
  T aa = 0, bb = 1, cc = 0, dd = 0;
  if (tid < na) aa = a[j], bb = b[j], cc = c[j], dd = d[j];
  for (int delta = 1; delta < na; delta *= 2) {
    T na_ = aa, nb = bb, nc = cc, nd = dd;
    if (tid < na) {
      const bool lo = tid - delta >= 0, hi = tid + delta < na;
      const int jl = j - delta * s, jh = j + delta * s;
      const T k1 = lo ? aa / b[jl] : T(0);
      const T k2 = hi ? cc / b[jh] : T(0);
      const T t1 = lo ? c[jl] * k1 : T(0);
      const T t2 = hi ? a[jh] * k2 : T(0);
      nb = bb - t1 - t2;
      if (!pivot_ok(nb, abs_of(bb) + abs_of(t1) + abs_of(t2))) record(flag, std::int64_t(sys) * n + j);
      nd = dd - (lo ? d[jl] * k1 : T(0)) - (hi ? d[jh] * k2 : T(0));
      na_ = lo ? -a[jl] * k1 : T(0);
      nc = hi ? -c[jh] * k2 : T(0);
    }
    __syncthreads();
    aa = na_, bb = nb, cc = nc, dd = nd;
    if (tid < na) a[j] = aa, b[j] = bb, c[j] = cc, d[j] = dd;
    __syncthreads();
  }
  if (tid < na) d[j] = dd / bb;
  __syncthreads();
  for (s /= 2; s >= 1; s /= 2) {
    for (int r = s - 1 + 2 * s * tid; r < n; r += 2 * s * nt) {
      const T lo = r - s >= 0 ? a[r] * d[r - s] : T(0);
      const T hi = r + s < n ? c[r] * d[r + s] : T(0);
      d[r] = (d[r] - lo - hi) / b[r];
    }
    __syncthreads();
  }
  for (int i = tid; i < n; i += nt) bt.d[base + i * rs] = d[i];
}

template <class T>
__global__ void partition_reduce_kernel(std::int64_t n, std::int64_t parts, const T* a, const T* b,
                                        const T* c, T* d, T* Bp, T* F, T* G, T* ra, T* rb, T* rc,
                                        T* rd, Flag* flag, std::int64_t offset) {
  const std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= parts) return;
  const std::int64_t s = partition::first_row(p, parts, n), e = partition::first_row(p + 1, parts, n) - 1;
  const int r = partition::reduce(s, e, n, a, b, c, d, Bp, F, G, ra, rb, rc, rd, p);
  if (r >= 0) record(flag, offset + r);
}

template <class T>
__global__ void partition_finish_kernel(std::int64_t n, std::int64_t parts, T* d, const T* Bp,
                                        const T* F, const T* G, const T* rx) {
  const std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= parts) return;
  partition::finish(partition::first_row(p, parts, n), partition::first_row(p + 1, parts, n) - 1, d,
                    Bp, F, G, rx, p);
}

int max_shared_bytes() {
  static const int bytes = [] {
    int dev = 0, v = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    return v > 0 ? v : 48 * 1024;
  }();
  return bytes;
}

template <class T>
void launch_cr_pcr(const Batch<T>& bt, int pcr_rows, Flag* flag) {
  static const bool configured = [] {
    cudaFuncSetAttribute(cr_pcr_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, max_shared_bytes());
    return true;
  }();
  (void)configured;
  const int threads = pcr_rows >= bt.n ? std::max(32, (bt.n + 31) / 32 * 32)
                                        : std::min(512, std::max(32, (bt.n / 2 + 31) / 32 * 32));
  const std::size_t smem = 4 * std::size_t(bt.n) * sizeof(T);
  cr_pcr_kernel<T><<<bt.count, threads, smem>>>(bt, pcr_rows < 0 ? threads : pcr_rows, flag);
  cuda::check_launch("cr-pcr tridiagonal kernel");
}

// One contiguous system by partitions of about 64 rows; the reduced system (two rows
// per partition) is solved the same way until it fits one block's shared memory.
template <class T>
void partitioned(std::int64_t n, const T* a, const T* b, const T* c, T* d, Flag* flag,
                 std::int64_t offset, int depth) {
  const int limit = cuda_shared_rows_limit(sizeof(T));
  if (n <= limit) {
    launch_cr_pcr(Batch<T>{a, b, c, d, int(n), 1, Layout::strided}, -1, flag);
    return;
  }
  const std::int64_t parts = n / 64;
  const std::int64_t reduced = 2 * parts;
  T* work = static_cast<T*>(scratch(2 + depth, sizeof(T) * std::size_t(3 * n + 4 * reduced)));
  T *Bp = work, *F = Bp + n, *G = F + n, *ra = G + n, *rb = ra + reduced, *rc = rb + reduced,
    *rd = rc + reduced;
  const int threads = 128;
  const unsigned blocks = unsigned((parts + threads - 1) / threads);
  partition_reduce_kernel<T><<<blocks, threads>>>(n, parts, a, b, c, d, Bp, F, G, ra, rb, rc, rd, flag, offset);
  cuda::check_launch("partitioned tridiagonal reduction");
  partitioned<T>(reduced, ra, rb, rc, rd, flag, offset, depth + 1);
  partition_finish_kernel<T><<<blocks, threads>>>(n, parts, d, Bp, F, G, rd);
  cuda::check_launch("partitioned tridiagonal fix-up");
}

}  // namespace

int cuda_shared_rows_limit(std::size_t elem_bytes) {
  return int(max_shared_bytes() / (4 * elem_bytes));
}

template <class T>
std::int64_t solve_cuda(const Batch<T>& bt, Method method, bool check) {
  Flag* flag = static_cast<Flag*>(scratch(0, sizeof(Flag)));
  cuda::check(cudaMemsetAsync(flag, 0xff, sizeof(Flag)), "memset");
  const int limit = cuda_shared_rows_limit(sizeof(T));
  switch (method) {
    case Method::thomas: {
      T* cp = static_cast<T*>(scratch(1, sizeof(T) * std::size_t(bt.n) * bt.count));
      const int threads = 128;
      thomas_kernel<T><<<(bt.count + threads - 1) / threads, threads>>>(bt, cp, flag);
      cuda::check_launch("Thomas tridiagonal kernel");
      break;
    }
    case Method::cyclic_reduction:
    case Method::cr_pcr:
    case Method::parallel_cyclic_reduction: {
      require(bt.n <= limit,
              fmt::format("the {} method keeps a system in shared memory: at most {} rows in this "
                          "precision, got {}; use partitioned or thomas",
                          to_string(method), limit, bt.n));
      int pcr_rows = -1;  // one row per thread
      if (method == Method::cyclic_reduction) pcr_rows = 1;
      if (method == Method::parallel_cyclic_reduction) {
        require(bt.n <= 512, fmt::format("the pcr method on the GPU takes at most 512 rows (one per "
                                         "thread), got {}; use cr-pcr",
                                         bt.n));
        pcr_rows = bt.n;
      }
      launch_cr_pcr(bt, pcr_rows, flag);
      break;
    }
    case Method::partitioned: {
      require(bt.layout == Layout::strided || bt.count == 1,
              "the partitioned method takes strided batches (or one system)");
      for (int s = 0; s < bt.count; ++s) {
        const std::int64_t base = std::int64_t(s) * bt.n;
        partitioned<T>(bt.n, bt.a + base, bt.b + base, bt.c + base, bt.d + base, flag, base, 0);
      }
      break;
    }
    default:
      throw Error("tridiagonal: no method chosen");
  }
  if (!check) return -1;
  Flag host = no_failure;
  cuda::check(cudaMemcpy(&host, flag, sizeof(Flag), cudaMemcpyDeviceToHost), "tridiagonal solve");
  return host == no_failure ? -1 : std::int64_t(host);
}

template std::int64_t solve_cuda<float>(const Batch<float>&, Method, bool);
template std::int64_t solve_cuda<double>(const Batch<double>&, Method, bool);

}  // namespace gridsolve::tridiag
