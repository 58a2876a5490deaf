#include "gridsolve/solve/multigrid/coarsest_solve.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve::multigrid {

namespace {

// The arrays an inverse is made in: host memory on the host, the device's in place.
template <class T>
struct InverseWork {
  StencilView<T> v;
  std::array<int, 3> grid{1, 1, 1};  // the level's nodes per axis
  int n = 0;                         // its unknowns (numbered)
  bool singular = false;
  const int* number = nullptr;  // per grid node, its unknown's number (-1: none)
  const int* nodes = nullptr;   // (i, j, k) of each unknown
  double* a = nullptr;          // n x n: the matrix, reduced to the identity
  double* inv = nullptr;        // n x n: the identity, made the inverse
  double* leftover = nullptr;   // per row, what its couplings to unknowns leave of a_P
  T* inverse = nullptr;         // inv in T, what the solves read
  int* pivot = nullptr;         // the column's pivot row, shared by the threads
  std::int64_t* status = nullptr;
};

// What a barrier orders between the threads of a block; on the host one thread runs.
GRIDSOLVE_HD inline void block_barrier() {
#if defined(__CUDA_ARCH__)
  __syncthreads();
#endif
}

// The level's free nodes numbered x fastest: number (per grid node) and nodes; returns
// their count. One thread.
template <class T>
GRIDSOLVE_HD int number_unknowns(const StencilView<T>& v, const std::array<int, 3>& grid,
                                 int* number, int* nodes) {
  const std::int64_t all = std::int64_t(grid[0]) * grid[1] * grid[2];
  for (std::int64_t q = 0; q < all; ++q) number[q] = -1;
  int n = 0;
  const Box& b = v.active;
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i)
        if (v.is_free(i, j, k)) {
          number[i + std::int64_t(grid[0]) * (j + std::int64_t(grid[1]) * k)] = n;
          nodes[3 * n] = i, nodes[3 * n + 1] = j, nodes[3 * n + 2] = k;
          ++n;
        }
  return n;
}

// Assembles the rows and inverts them by Gauss-Jordan with partial pivoting, in double,
// as thread t of `threads` (a row's elimination is one thread's, so every entry sees the
// same operations in the same order whatever the count). status[1] = 1 where a pivot
// vanishes.
template <class T>
GRIDSOLVE_HD void invert_rows(const InverseWork<T>& w, int t, int threads) {
  const int n = w.n;
  const std::int64_t nn = std::int64_t(n) * n;
  for (std::int64_t q = t; q < nn; q += threads) {
    w.a[q] = 0.0;
    w.inv[q] = q / n == q % n ? 1.0 : 0.0;
  }
  block_barrier();
  const int di[6] = {-1, 1, 0, 0, 0, 0}, dj[6] = {0, 0, -1, 1, 0, 0}, dk[6] = {0, 0, 0, 0, -1, 1};
  const StencilView<T>& v = w.v;
  for (int r = t; r < n; r += threads) {
    const int i = w.nodes[3 * r], j = w.nodes[3 * r + 1], k = w.nodes[3 * r + 2];
    const double diag = double(v.diag(i, j, k));
    w.a[std::int64_t(r) * n + r] = diag;
    double row = diag;
    for (int f = 0; f < (v.dims == 3 ? 6 : 4); ++f) {
      // A neighbour across a periodic side is the unknown it images.
      const int ii = v.fold(0, i + di[f]), jj = v.fold(1, j + dj[f]), kk = v.fold(2, k + dk[f]);
      const double c = double(v.coefficient(f, i, j, k));
      if (ii < 0 || jj < 0 || kk < 0 || ii >= w.grid[0] || jj >= w.grid[1] || kk >= w.grid[2])
        continue;
      const int col = w.number[ii + std::int64_t(w.grid[0]) * (jj + std::int64_t(w.grid[1]) * kk)];
      if (col < 0 || !v.active.contains(ii, jj, kk)) continue;  // known: a right-hand side
      w.a[std::int64_t(r) * n + col] -= c;
      row -= c;  // what is left of the row once the unknowns' couplings are taken off
    }
    w.leftover[r] = row;
  }
  block_barrier();
  if (t == 0) {
    // Singular: add the constants' projector. Round-off that the coarsening lumps onto
    // the diagonals level after level must not pass for a real sink: inverted, a nearly
    // singular matrix returns a correction with a huge constant part, which drowns the
    // fine level's residual in cancellation (a 1025^2 all-periodic problem stalled at
    // 1e-2). Summed in row order, the same on every device.
    double sink = 0, diag = 0;
    for (int r = 0; r < n; ++r) sink += w.leftover[r], diag += w.a[std::int64_t(r) * n + r];
    w.leftover[0] = n > 0 && (w.singular || sink <= 1e-12 * diag) ? diag / n / n : 0.0;
  }
  block_barrier();
  const double shift = n > 0 ? w.leftover[0] : 0.0;
  if (shift != 0.0)
    for (std::int64_t q = t; q < nn; q += threads) w.a[q] += shift;
  block_barrier();
  for (int c = 0; c < n; ++c) {
    // The pivot: the first row of the largest |a_rc| at or below c (the host's scan).
#if defined(__CUDA_ARCH__)
    if (t < 32) {
      double best = -1;
      int p = n;
      for (int r = c + t; r < n; r += 32) {
        const double x = fabs(w.a[std::int64_t(r) * n + c]);
        if (r == c || x > best) best = x, p = r;
      }
      for (int lane = 16; lane > 0; lane /= 2) {
        const double other = __shfl_down_sync(0xffffffffu, best, lane);
        const int other_p = __shfl_down_sync(0xffffffffu, p, lane);
        if (other > best || (other == best && other_p < p)) best = other, p = other_p;
      }
      if (t == 0) {
        *w.pivot = p;
        if (w.a[std::int64_t(p) * n + c] == 0.0) w.status[1] = 1;
      }
    }
#else
    if (t == 0) {
      int p = c;
      for (int r = c + 1; r < n; ++r)
        if (fabs(w.a[std::int64_t(r) * n + c]) > fabs(w.a[std::int64_t(p) * n + c])) p = r;
      *w.pivot = p;
      if (w.a[std::int64_t(p) * n + c] == 0.0) w.status[1] = 1;
    }
#endif
    block_barrier();
    if (w.status[1] != 0) return;  // every thread sees it after the barrier
    const int p = *w.pivot;
    if (p != c)
      for (int k = t; k < n; k += threads) {
        double* ac = w.a + std::int64_t(c) * n;
        double* ap = w.a + std::int64_t(p) * n;
        double* ic = w.inv + std::int64_t(c) * n;
        double* ip = w.inv + std::int64_t(p) * n;
        const double x = ac[k], y = ic[k];
        ac[k] = ap[k], ic[k] = ip[k];
        ap[k] = x, ip[k] = y;
      }
    block_barrier();
    const double piv = 1.0 / w.a[std::int64_t(c) * n + c];
    block_barrier();  // every thread has read the pivot before its row is scaled
    for (int k = t; k < n; k += threads) {
      w.a[std::int64_t(c) * n + k] *= piv;
      w.inv[std::int64_t(c) * n + k] *= piv;
    }
    block_barrier();
    const double* ac = w.a + std::int64_t(c) * n;
    const double* ic = w.inv + std::int64_t(c) * n;
    for (int r = t; r < n; r += threads) {
      if (r == c) continue;
      double* ar = w.a + std::int64_t(r) * n;
      double* ir = w.inv + std::int64_t(r) * n;
      const double f = ar[c];
      if (f == 0.0) continue;
      for (int k = 0; k < n; ++k) {
        ar[k] -= f * ac[k];
        ir[k] -= f * ic[k];
      }
    }
    block_barrier();
  }
  for (std::int64_t q = t; q < nn; q += threads) w.inverse[q] = T(w.inv[q]);
}

#if defined(__CUDACC__)
constexpr int k_inverse_threads = 256;

// The matrix and its inverse live in shared memory up to this size (a level of up to 112
// nodes), in global memory beyond. (On an H200 a whole refresh of DFG 2D-2's hierarchy, 28
// unknowns on its coarsest level, took 0.65 ms either way, so that time is not this
// kernel's.)
constexpr std::size_t k_shared_matrix_bytes = 200 * 1024;

// The whole refresh in one block: numbered by one thread, then inverted by all; in shared
// memory (`cap` by `cap` each) where `shared` is set.
template <class T>
__global__ void __launch_bounds__(k_inverse_threads)
    coarsest_inverse_kernel(InverseWork<T> w, int* number, int* nodes, bool shared, int cap) {
  extern __shared__ double matrices[];
  if (shared) {
    w.a = matrices;
    w.inv = matrices + std::int64_t(cap) * cap;
  }
  if (threadIdx.x == 0) {
    w.status[0] = number_unknowns(w.v, w.grid, number, nodes);
    w.status[1] = 0;
  }
  __syncthreads();
  w.n = int(w.status[0]);
  invert_rows(w, int(threadIdx.x), k_inverse_threads);
}
#endif

// The coarsest level's three loops. gather: b = its rows' right-hand side with known
// neighbours moved over, packed from the field into one vector; solve: x = A^-1 b;
// scatter: x back into the field's unknowns.
template <class T>
void gather_coarse(int count, const int* ids, T* b, const StencilView<T>& v, const Field<T>& u,
                   Device d) {
  const FieldView<const T> uc = u.cview();
  for_each(d, Box{{0, 0, 0}, {count - 1, 0, 0}}, [=] GRIDSOLVE_HD(int r, int, int) {
    b[r] = v.known_rhs(uc, ids[3 * r], ids[3 * r + 1], ids[3 * r + 2]);
  });
}
template <class T>
void dense_solve(int count, const T* inv, const T* b, T* x, Device d) {
  for_each(d, Box{{0, 0, 0}, {count - 1, 0, 0}}, [=] GRIDSOLVE_HD(int r, int, int) {
    T s = 0;
    for (int c = 0; c < count; ++c) s += inv[std::size_t(r) * count + c] * b[c];
    x[r] = s;
  });
}
template <class T>
void scatter_coarse(int count, const int* ids, const T* x, Field<T>& u, Device d) {
  const FieldView<T> uv = u.view();
  for_each(d, Box{{0, 0, 0}, {count - 1, 0, 0}}, [=] GRIDSOLVE_HD(int r, int, int) {
    uv(ids[3 * r], ids[3 * r + 1], ids[3 * r + 2]) = x[r];
  });
}

}  // namespace

template <class T>
CoarsestSolve<T>::CoarsestSolve(const StencilOperator<T>& op, bool singular)
    : device_(op.device), singular_(singular) {
#if defined(__CUDACC__)
  in_place_ =
      op.device == Device::cuda && !op.parts && op.active.cells() <= k_inverse_in_place_nodes;
#endif
  if (in_place_) {
    const std::size_t cap = std::size_t(op.active.cells());
    capacity_ = int(cap);
    number_ = Buffer<int>(device_, std::size_t(op.grid.node_count()));
    nodes_ = Buffer<int>(device_, 3 * cap);
#if defined(__CUDACC__)
    shared_bytes_ = 2 * cap * cap * sizeof(double);
    if (shared_bytes_ <= k_shared_matrix_bytes) {
      cuda::check(
          cudaFuncSetAttribute(coarsest_inverse_kernel<T>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes_)),
          "multigrid coarsest inverse: shared memory");
    } else {
      shared_bytes_ = 0;
      matrix_ = Buffer<double>(device_, cap * cap);
      inverse_work_ = Buffer<double>(device_, cap * cap);
    }
#endif
    leftover_ = Buffer<double>(device_, cap);
    inverse_ = Buffer<T>(device_, cap * cap);
    rhs_ = Buffer<T>(device_, cap);
    x_ = Buffer<T>(device_, cap);
    pivot_ = Buffer<int>(device_, 1);
  }
  if (!in_place_) {
    make_on_host(op);
    return;
  }
  status_ = Buffer<std::int64_t>(device_, 2);
  refresh(op, singular, status_.data());
  std::int64_t status[2] = {0, 0};
  read_results(device_, status_.data(), status, 2);
  take_status(status);
}

template <class T>
CoarsestSolve<T>::~CoarsestSolve() = default;
template <class T>
CoarsestSolve<T>::CoarsestSolve(CoarsestSolve&&) noexcept = default;
template <class T>
CoarsestSolve<T>& CoarsestSolve<T>::operator=(CoarsestSolve&&) noexcept = default;

template <class T>
void CoarsestSolve<T>::refresh(const StencilOperator<T>& op, bool singular, std::int64_t* status) {
  require(in_place_ && op.device == device_,
          "multigrid: the coarsest inverse is remade in place only where it was made so");
  singular_ = singular;
#if defined(__CUDACC__)
  InverseWork<T> w;
  w.v = op.view();
  w.grid = op.grid.n;
  w.singular = singular_;
  w.number = number_.data();
  w.nodes = nodes_.data();
  w.a = matrix_.data();
  w.inv = inverse_work_.data();
  w.leftover = leftover_.data();
  w.inverse = inverse_.data();
  w.pivot = pivot_.data();
  w.status = status;
  coarsest_inverse_kernel<T><<<1, k_inverse_threads, shared_bytes_, cuda::exec_stream()>>>(
      w, number_.data(), nodes_.data(), shared_bytes_ > 0, capacity_);
  cuda::check_launch("multigrid coarsest inverse launch");
#endif
}

template <class T>
void CoarsestSolve<T>::make_on_host(const StencilOperator<T>& op_device) {
  const StencilOperator<T> copy =
      op_device.device == Device::cpu ? StencilOperator<T>() : op_device.copy_to(Device::cpu);
  const StencilOperator<T>& op = op_device.device == Device::cpu ? op_device : copy;
  InverseWork<T> w;
  w.v = op.view();
  w.grid = op.grid.n;
  w.singular = singular_;
  std::vector<int> number(std::size_t(op.grid.node_count()));
  std::vector<int> nodes(3 * std::size_t(op.active.cells()));
  w.n = number_unknowns(w.v, w.grid, number.data(), nodes.data());
  const std::size_t n = std::size_t(w.n);
  std::vector<double> a(n * n), inv(n * n), leftover(std::max<std::size_t>(n, 1));
  std::vector<T> inverse(n * n);
  int pivot = 0;
  std::int64_t host_status[2] = {w.n, 0};
  w.number = number.data();
  w.nodes = nodes.data();
  w.a = a.data();
  w.inv = inv.data();
  w.leftover = leftover.data();
  w.inverse = inverse.data();
  w.pivot = &pivot;
  w.status = host_status;
  invert_rows(w, 0, 1);
  take_status(host_status);
  // Made once, by the constructor: a refresh of such a level makes a new solve.
  inverse_ = Buffer<T>(device_, n * n);
  nodes_ = Buffer<int>(device_, 3 * n);
  rhs_ = Buffer<T>(device_, std::max<std::size_t>(n, 1));
  x_ = Buffer<T>(device_, std::max<std::size_t>(n, 1));
  copy_bytes(inverse_.data(), device_, inverse.data(), Device::cpu, n * n * sizeof(T));
  copy_bytes(nodes_.data(), device_, nodes.data(), Device::cpu, 3 * n * sizeof(int));
}

template <class T>
void CoarsestSolve<T>::take_status(const std::int64_t* status) {
  require(status[1] == 0, "multigrid: the coarsest level is singular");
  n_ = int(status[0]);
}

template <class T>
void CoarsestSolve<T>::solve(const StencilView<T>& v, Field<T>& u) const {
  if (n_ == 0) return;
  gather_coarse(n_, nodes_.data(), rhs_.data(), v, u, device_);
  dense_solve(n_, inverse_.data(), rhs_.data(), x_.data(), device_);
  scatter_coarse(n_, nodes_.data(), x_.data(), u, device_);
}

template <class T>
BlockCoarsest<T> CoarsestSolve<T>::block_view() const {
  return BlockCoarsest<T>{n_, inverse_.data(), nodes_.data(), rhs_.data(), x_.data()};
}

template <class T>
std::vector<std::uintptr_t> CoarsestSolve<T>::recorded_arguments() const {
  return {std::uintptr_t(inverse_.data()), std::uintptr_t(nodes_.data()),
          std::uintptr_t(rhs_.data()), std::uintptr_t(x_.data()), std::uintptr_t(n_)};
}

template class CoarsestSolve<float>;
template class CoarsestSolve<double>;

}  // namespace gridsolve::multigrid
