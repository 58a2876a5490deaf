// CUDA back end of parallel_for.hpp: box launches and a CUB block reduction.
#pragma once
#include <algorithm>
#include <array>
#include <cub/block/block_reduce.cuh>

#include "gridsolve/core/box.hpp"
#include "gridsolve/exec/cuda_check.hpp"

namespace gridsolve::cuda {

// A stream that takes the exec layer's work on this host thread for a while (see
// ExecStreamScope); null: none.
inline thread_local cudaStream_t exec_stream_override = nullptr;

// The stream the exec layer's kernels run on: each host thread's own, so threads that
// solve side by side do not wait for each other. It is a blocking stream: work on it stays
// ordered with the legacy default stream that copies, cuFFT and the tuned kernels use.
inline cudaStream_t exec_stream() {
  return exec_stream_override ? exec_stream_override : cudaStreamPerThread;
}

// While it lives, the exec layer's launches and the device link's messages on this thread
// go to `stream` instead (a non-blocking one runs beside the legacy default stream: how a
// ghost exchange overlaps a tuned sweep of the interior).
class ExecStreamScope {
 public:
  explicit ExecStreamScope(cudaStream_t stream) : previous_(exec_stream_override) {
    exec_stream_override = stream;
  }
  ~ExecStreamScope() { exec_stream_override = previous_; }
  ExecStreamScope(const ExecStreamScope&) = delete;
  ExecStreamScope& operator=(const ExecStreamScope&) = delete;

 private:
  cudaStream_t previous_;
};

constexpr int block_x = 32;
constexpr int block_y = 8;

template <class F>
__global__ void box_kernel(Box b, F f) {
  const int i = b.lo[0] + int(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = b.lo[1] + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (i > b.hi[0] || j > b.hi[1]) return;
  for (int k = b.lo[2] + int(blockIdx.z); k <= b.hi[2]; k += int(gridDim.z)) f(i, j, k);
}

// A loop body may ask for `min_blocks` resident blocks per multiprocessor (a register cap):
// bodies that read many views otherwise hold one block of 256 threads an SM, too few to
// hide their loads' latency.
template <class F>
constexpr int min_blocks_of() {
  if constexpr (requires { F::min_blocks; })
    return F::min_blocks;
  else
    return 0;
}

template <int MinBlocks, class F>
__global__ void __launch_bounds__(block_x* block_y, MinBlocks) bounded_box_kernel(Box b, F f) {
  const int i = b.lo[0] + int(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = b.lo[1] + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (i > b.hi[0] || j > b.hi[1]) return;
  for (int k = b.lo[2] + int(blockIdx.z); k <= b.hi[2]; k += int(gridDim.z)) f(i, j, k);
}

template <class F>
__global__ void box_colour_kernel(Box b, int colour, F f) {
  const int t = int(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = b.lo[1] + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (j > b.hi[1]) return;
  for (int k = b.lo[2] + int(blockIdx.z); k <= b.hi[2]; k += int(gridDim.z)) {
    const int start = b.lo[0] + (((b.lo[0] + j + k) % 2 + 2 + colour) % 2);
    const int i = start + 2 * t;
    if (i <= b.hi[0]) f(i, j, k);
  }
}

inline dim3 grid_for(const Box& b, int x_extent) {
  const unsigned gz = unsigned(b.extent(2) < 65535 ? b.extent(2) : 65535);
  return dim3(unsigned((x_extent + block_x - 1) / block_x),
              unsigned((b.extent(1) + block_y - 1) / block_y), gz);
}

template <class F>
void launch_box(const Box& b, F f) {
  // A line (a flat loop over storage): whole blocks along it, not 1 row in 8 busy.
  const bool line = b.extent(1) == 1 && b.extent(2) == 1;
  const dim3 grid =
      line ? dim3(unsigned((b.extent(0) + block_x * block_y - 1) / (block_x * block_y)))
           : grid_for(b, b.extent(0));
  const dim3 block = line ? dim3(block_x * block_y) : dim3(block_x, block_y);
  if constexpr (min_blocks_of<F>() > 0)
    bounded_box_kernel<min_blocks_of<F>()><<<grid, block, 0, exec_stream()>>>(b, f);
  else
    box_kernel<<<grid, block, 0, exec_stream()>>>(b, f);
  check_launch("box kernel launch");
}

template <class F>
void launch_box_colour(const Box& b, int colour, F f) {
  box_colour_kernel<<<grid_for(b, (b.extent(0) + 1) / 2), dim3(block_x, block_y), 0,
                      exec_stream()>>>(b, colour, f);
  check_launch("colour kernel launch");
}

constexpr int reduce_threads = 256;

// Each block reduces a grid-stride share of the box's rows into one partial.
template <class T, class F, class Op>
__global__ void __launch_bounds__(reduce_threads)
    reduce_kernel(Box b, F f, Op op, T init, T* partials) {
  using BlockReduce = cub::BlockReduce<T, reduce_threads>;
  __shared__ typename BlockReduce::TempStorage tmp;
  const int ny = b.extent(1);
  const int rows = ny * b.extent(2);
  T local = init;
  // (j, k) of the block's rows stepped along, not divided out of each row's number
  int j = int(blockIdx.y) % ny, k = int(blockIdx.y) / ny;
  const int dj = int(gridDim.y) % ny, dk = int(gridDim.y) / ny;
  for (int row = int(blockIdx.y); row < rows; row += int(gridDim.y)) {
    for (int i = b.lo[0] + int(blockIdx.x * blockDim.x + threadIdx.x); i <= b.hi[0];
         i += int(gridDim.x * blockDim.x))
      local = op(local, f(i, b.lo[1] + j, b.lo[2] + k));
    j += dj, k += dk;
    if (j >= ny) j -= ny, ++k;
  }
  const T block = BlockReduce(tmp).Reduce(local, op);
  if (threadIdx.x == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = block;
}

constexpr int finish_threads = 1024;

template <class T, class Op>
__global__ void __launch_bounds__(finish_threads)
    finish_reduce_kernel(const T* partials, int n, Op op, T init, T* out) {
  using BlockReduce = cub::BlockReduce<T, finish_threads>;
  __shared__ typename BlockReduce::TempStorage tmp;
  T local = init;
  for (int c = threadIdx.x; c < n; c += blockDim.x) local = op(local, partials[c]);
  const T r = BlockReduce(tmp).Reduce(local, op);
  if (threadIdx.x == 0) *out = r;
}

// Scratch for reductions, one per stream (per host thread, as exec_stream is), kept
// across calls so a reduction allocates nothing.
void* reduce_scratch(std::size_t bytes);
int reduce_sms();
constexpr int reduce_blocks_most = 8 * 1024;  // partials a reduction's scratch holds (8 an SM)

// How a reduction's blocks cover the box: as many blocks as fit on the device at once (by
// the loop body's registers, at most 8 an SM), each striding over rows, so few partials
// are left to finish. A fixed 4 blocks an SM before left light bodies (norms, dot
// products) at half occupancy and half the memory bandwidth. A block per row (one cell a
// thread) for bodies that fit only 4 blocks an SM was tried: it made the multigrid
// residual norm (64 registers) 4 to 7% slower a solve, one block's reduction per 256
// cells, and gave the LLG step's fused passes nothing measurable.
template <class T, class F, class Op>
dim3 reduce_grid(const Box& b) {
  static const int fit = [] {
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel<T, F, Op>,
                                                      reduce_threads, 0) != cudaSuccess ||
        per_sm < 1)
      per_sm = 4;
    return std::min(per_sm, 8) * reduce_sms();
  }();
  const int gx = std::min((b.extent(0) + reduce_threads - 1) / reduce_threads, 8);
  const int rows = b.extent(1) * b.extent(2);
  return dim3(unsigned(gx), unsigned(std::max(1, std::min(rows, fit / gx))));
}

template <class T, class F, class Op>
void reduce_box_async(const Box& b, F f, Op op, T init, T* device_result) {
  const dim3 grid = reduce_grid<T, F, Op>(b);
  T* partials = static_cast<T*>(reduce_scratch(sizeof(T) * (reduce_blocks_most + 9))) + 1;
  reduce_kernel<T><<<grid, reduce_threads, 0, exec_stream()>>>(b, f, op, init, partials);
  check_launch("reduction");
  finish_reduce_kernel<T><<<1, finish_threads, 0, exec_stream()>>>(partials, int(grid.x * grid.y),
                                                                   op, init, device_result);
  check_launch("reduction");
}

// count values of device memory read into host memory after what the exec stream has
// queued: one wait.
template <class T>
void read_back(const T* device, T* host, std::size_t count, const char* what) {
  check(cudaMemcpyAsync(host, device, sizeof(T) * count, cudaMemcpyDeviceToHost, exec_stream()),
        what);
  check(cudaStreamSynchronize(exec_stream()), what);
}

template <class T, class F, class Op>
T reduce_box(const Box& b, F f, Op op, T init) {
  T* result = static_cast<T*>(reduce_scratch(sizeof(T) * (reduce_blocks_most + 9)));
  reduce_box_async<T>(b, f, op, init, result);
  T host{};
  read_back(result, &host, 1, "reduction");
  return host;
}

}  // namespace gridsolve::cuda
