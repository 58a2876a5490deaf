#include "gridsolve/solve/multigrid/line_relaxation.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/solve/tridiag/thomas.hpp"

#if defined(__CUDACC__)
#include "gridsolve/exec/cuda_launch.cuh"
#endif

namespace gridsolve::multigrid {

namespace {

// The lines of one colour in a box: along `axis`, at positions (p, q) across it, where
// p + q has the colour's parity (q is axis 2 of a 2D box, one position).
struct LineSet {
  int axis = 1, p = 0, q = 2;
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  int colour = 0;
  int nodes = 1;  // along a line
  int half = 0;   // the colour's positions in a row of p
  int rows = 0;   // rows of q

  GRIDSOLVE_HD int first_p(int q_index) const { return lo[p] + ((colour - lo[p] - q_index) & 1); }
};

LineSet lines_of(const Box& active, int axis, int colour) {
  LineSet s;
  s.axis = axis;
  s.p = axis == 0 ? 1 : 0;
  s.q = axis == 2 ? 1 : 2;
  for (int a = 0; a < 3; ++a) s.lo[a] = active.lo[a], s.hi[a] = active.hi[a];
  s.colour = colour;
  s.nodes = active.hi[axis] - active.lo[axis] + 1;
  s.half = (active.hi[s.p] - active.lo[s.p] + 2) / 2;
  s.rows = active.hi[s.q] - active.lo[s.q] + 1;
  return s;
}

template <class T>
struct LineRow {
  T low, diag, high, rhs;
};

// Row m of a line: the node's own row, its neighbours off the line moved to the right-hand
// side at their current values; at the line's ends the node beyond (off the unknowns) too.
// A fixed node is an identity row holding its value.
template <class T>
GRIDSOLVE_HD LineRow<T> line_row(const StencilView<T>& a, const FieldView<T>& u, int axis, int i,
                                 int j, int k, bool first, bool last) {
  const typename StencilView<T>::Row r = a.row(i, j, k);
  if (!r.free) return LineRow<T>{T(0), T(1), T(0), u(i, j, k)};
  const bool three = a.dims == 3;
  T rhs = r.b, low, high, below, above;
  if (axis == 0) {
    low = r.w, high = r.e, below = u(i - 1, j, k), above = u(i + 1, j, k);
    rhs += r.s * u(i, j - 1, k) + r.n * u(i, j + 1, k);
    if (three) rhs += r.bottom * u(i, j, k - 1) + r.top * u(i, j, k + 1);
  } else if (axis == 1) {
    low = r.s, high = r.n, below = u(i, j - 1, k), above = u(i, j + 1, k);
    rhs += r.w * u(i - 1, j, k) + r.e * u(i + 1, j, k);
    if (three) rhs += r.bottom * u(i, j, k - 1) + r.top * u(i, j, k + 1);
  } else {
    low = r.bottom, high = r.top, below = u(i, j, k - 1), above = u(i, j, k + 1);
    rhs +=
        r.w * u(i - 1, j, k) + r.e * u(i + 1, j, k) + r.s * u(i, j - 1, k) + r.n * u(i, j + 1, k);
  }
  if (first) rhs += low * below, low = T(0);
  if (last) rhs += high * above, high = T(0);
  return LineRow<T>{-low, r.diag, -high, rhs};
}

struct AxisSums {
  double s[3] = {0, 0, 0};
  GRIDSOLVE_HD AxisSums operator+(const AxisSums& o) const {
    return AxisSums{{s[0] + o.s[0], s[1] + o.s[1], s[2] + o.s[2]}};
  }
};

#if defined(__CUDACC__)
// One line a block, a node a thread: the rows in shared memory, solved by parallel cyclic
// reduction (every row reduced against those s = 1, 2, 4, ... away until it stands
// alone: log2 of the line's length steps, each a barrier).
template <class T>
__global__ void line_sweep_kernel(StencilView<T> a, FieldView<T> u, LineSet s) {
  extern __shared__ unsigned char line_shared[];
  T* la = reinterpret_cast<T*>(line_shared);
  T* lb = la + s.nodes;
  T* lc = lb + s.nodes;
  T* ld = lc + s.nodes;
  const int q = s.lo[s.q] + int(blockIdx.y);
  const int p = s.first_p(q) + 2 * int(blockIdx.x);
  if (p > s.hi[s.p]) return;  // the whole block: no barrier is left waiting
  const int n = s.nodes;
  const int m = int(threadIdx.x);
  int I[3];
  I[s.p] = p, I[s.q] = q, I[s.axis] = s.lo[s.axis] + m;
  if (m < n) {
    const LineRow<T> r = line_row(a, u, s.axis, I[0], I[1], I[2], m == 0, m == n - 1);
    la[m] = r.low, lb[m] = r.diag, lc[m] = r.high, ld[m] = r.rhs;
  }
  __syncthreads();
  for (int step = 1; step < n; step *= 2) {
    T na = 0, nb = 1, nc = 0, nd = 0;
    if (m < n) {
      const T aj = la[m], cj = lc[m];
      nb = lb[m], nd = ld[m];
      if (m - step >= 0) {
        const T k1 = aj / lb[m - step];
        na = -la[m - step] * k1;
        nb -= lc[m - step] * k1;
        nd -= ld[m - step] * k1;
      }
      if (m + step < n) {
        const T k2 = cj / lb[m + step];
        nc = -lc[m + step] * k2;
        nb -= la[m + step] * k2;
        nd -= ld[m + step] * k2;
      }
    }
    __syncthreads();
    if (m < n) la[m] = na, lb[m] = nb, lc[m] = nc, ld[m] = nd;
    __syncthreads();
  }
  if (m < n) u(I[0], I[1], I[2]) = ld[m] / lb[m];
}
#endif

}  // namespace

template <class T>
int line_axis(const StencilOperator<T>& op) {
  if (op.parts) return -1;
  AxisSums sums;
  if (op.uniform) {
    sums = AxisSums{{double(op.cw) + op.ce, double(op.cs) + op.cn, double(op.cb) + op.ct}};
  } else {
    const StencilView<T> a = op.view();
    sums = reduce<AxisSums>(
        op.device, op.active,
        [=] GRIDSOLVE_HD(int i, int j, int k) -> AxisSums {
          const typename StencilView<T>::Row r = a.row(i, j, k);
          if (!r.free) return AxisSums{};
          return AxisSums{{double(r.w) + r.e, double(r.s) + r.n, double(r.bottom) + r.top}};
        },
        SumOp{}, AxisSums{});
  }
  int axis = 0;
  for (int q = 1; q < op.grid.dims; ++q)
    if (sums.s[q] > sums.s[axis]) axis = q;
  const int nodes = op.active.hi[axis] - op.active.lo[axis] + 1;
  if ((op.periodic >> axis) & 1) return -1;
  if (op.device == Device::cuda && nodes > k_line_nodes) return -1;
  return axis;
}

template <class T>
void line_sweep(const StencilView<T>& a, Field<T>& u, int axis, int colour, Device d) {
  const LineSet s = lines_of(a.active, axis, colour);
  if (s.half <= 0 || s.rows <= 0) return;
  const FieldView<T> v = u.view();
  if (d == Device::cuda) {
#if defined(__CUDACC__)
    require(s.nodes <= k_line_nodes, "multigrid: a line longer than a block's threads");
    const int threads = (s.nodes + 31) / 32 * 32;
    const std::size_t shared = 4 * std::size_t(s.nodes) * sizeof(T);
    line_sweep_kernel<T><<<dim3(unsigned(s.half), unsigned(s.rows)), unsigned(threads), shared,
                           cuda::exec_stream()>>>(a, v, s);
    cuda::check_launch("multigrid line sweep launch");
    return;
#else
    throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
  }
  // One line at a time a thread, by the Thomas algorithm. A pivot lost (a line whose rows
  // alone are singular: no coupling off it, Neumann at both ends) leaves it as it was.
  const std::int64_t lines = std::int64_t(s.half) * s.rows;
  const int n = s.nodes;
#pragma omp parallel if (lines * n >= cpu_parallel_threshold)
  {
    const std::size_t count = std::size_t(n);
    std::vector<T> la(count), lb(count), lc(count), ld(count), scratch(count);
#pragma omp for schedule(static)
    for (std::int64_t line = 0; line < lines; ++line) {
      const int q = s.lo[s.q] + int(line / s.half);
      const int p = s.first_p(q) + 2 * int(line % s.half);
      if (p > s.hi[s.p]) continue;
      int I[3];
      I[s.p] = p, I[s.q] = q;
      for (int m = 0; m < n; ++m) {
        I[axis] = s.lo[axis] + m;
        const LineRow<T> r = line_row(a, v, axis, I[0], I[1], I[2], m == 0, m == n - 1);
        const std::size_t o = std::size_t(m);
        la[o] = r.low, lb[o] = r.diag, lc[o] = r.high, ld[o] = r.rhs;
      }
      if (tridiag::thomas(n, la.data(), lb.data(), lc.data(), ld.data(), scratch.data(), 1) >= 0)
        continue;
      for (int m = 0; m < n; ++m) {
        I[axis] = s.lo[axis] + m;
        v(I[0], I[1], I[2]) = ld[std::size_t(m)];
      }
    }
  }
}

template int line_axis(const StencilOperator<float>&);
template int line_axis(const StencilOperator<double>&);
template void line_sweep(const StencilView<float>&, Field<float>&, int, int, Device);
template void line_sweep(const StencilView<double>&, Field<double>&, int, int, Device);

}  // namespace gridsolve::multigrid
