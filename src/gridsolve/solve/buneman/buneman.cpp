// Buneman block cyclic reduction: precomputed shifted-block factors, then per level one
// batched tridiagonal solve (one system per block row and shift) and one combine pass.
#include "gridsolve/solve/buneman/buneman.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/solve/tridiag/shifted_lines.hpp"

namespace gridsolve::buneman {

template <class T>
bool BlockCyclicReduction<T>::rows_allowed(int n) {
  return n >= 1 && ((n + 1) & n) == 0;
}

// After dividing each row by -cs the system reads U_{j-1} + B U_j + U_{j+1} = F_j with
// B = tridiag(rho, -cp/cs, rho), rho = cw/cs, so T = I in the spec's recurrence and
//   B^(r) = -prod_{l=1..2^r} (B - 2 cos(theta_{r,l}) I),  theta_{r,l} = (2l-1) pi / 2^(r+1),
//   [B^(r)]^-1 = sum_l alpha_{r,l} (B - 2 cos(theta_{r,l}) I)^-1,
//   alpha_{r,l} = (-1)^l sin(theta_{r,l}) / 2^r  (r >= 1);  B^(0) = B itself.
// Each shifted block is diagonally dominant (|diag| = 2 + 2 rho + 2 cos > 2 rho), so its
// LU factors need no pivoting; they are computed once per solver.
template <class T>
BlockCyclicReduction<T>::BlockCyclicReduction(Device device, int rows, int cols, double cp,
                                              double cw, double cs)
    : device_(device), n_(rows), q_(cols), cp_(cp), cw_(cw), cs_(cs) {
  require(rows_allowed(rows),
          fmt::format("block cyclic reduction needs 2^k - 1 rows of unknowns, got {}", rows));
  require(cols >= 1, fmt::format("need at least one column, got {}", cols));
  require(cw > 0 && cs > 0 && cp >= 2 * (cw + cs),
          "block cyclic reduction needs a five-point Laplacian (cp >= 2 (cw + cs) > 0)");
  levels_ = 0;
  while ((1 << levels_) - 1 < rows) ++levels_;  // k
  const double rho = cw / cs, diag = -cp / cs;
  diag_ = diag;
  std::int64_t total = 0, atotal = 0;
  for (int r = 0; r < levels_; ++r) {
    level_offset_.push_back(total);
    alpha_offset_.push_back(atotal);
    const int shifts = 1 << r;
    total += std::int64_t(shifts) * cols;
    atotal += shifts;
  }
  std::vector<T> cpf(static_cast<std::size_t>(total)), invf(static_cast<std::size_t>(total));
  alpha_host_.resize(std::size_t(atotal));
  std::vector<double> shift_host(static_cast<std::size_t>(atotal));
  for (int r = 0; r < levels_; ++r) {
    const int shifts = 1 << r;
    for (int l = 1; l <= shifts; ++l) {
      const double theta = (2.0 * l - 1) * std::numbers::pi / double(1 << (r + 1));
      const double beta = diag - (r == 0 ? 0.0 : 2 * std::cos(theta));
      shift_host[std::size_t(alpha_offset_[r] + l - 1)] = beta - diag;
      alpha_host_[std::size_t(alpha_offset_[r] + l - 1)] =
          T(r == 0 ? 1.0 : ((l % 2) ? -1.0 : 1.0) * std::sin(theta) / double(1 << r));
      double cprev = 0;
      for (int i = 0; i < cols; ++i) {
        const double inv = 1.0 / (beta - (i > 0 ? rho * cprev : 0.0));
        cprev = rho * inv;
        const std::size_t at = std::size_t(level_offset_[r] + std::int64_t(i) * shifts + (l - 1));
        cpf[at] = T(cprev);
        invf[at] = T(inv);
      }
    }
  }
  cp_fac_ = Buffer<T>(device, cpf.size());
  inv_fac_ = Buffer<T>(device, invf.size());
  alpha_ = Buffer<T>(device, alpha_host_.size());
  copy_bytes(cp_fac_.data(), device, cpf.data(), Device::cpu, cpf.size() * sizeof(T));
  copy_bytes(inv_fac_.data(), device, invf.data(), Device::cpu, invf.size() * sizeof(T));
  copy_bytes(alpha_.data(), device, alpha_host_.data(), Device::cpu,
             alpha_host_.size() * sizeof(T));
  shift_ = Buffer<double>(device, shift_host.size());
  copy_bytes(shift_.data(), device, shift_host.data(), Device::cpu,
             shift_host.size() * sizeof(double));
  p_ = Buffer<T>(device, std::size_t(rows) * cols);
  x_ = Buffer<T>(device, std::size_t((rows + 1) / 2) * cols + 1);
}

template <class T>
void BlockCyclicReduction<T>::solve(T* data) {
  const int N = n_, Q = q_;
  const T rho = T(cw_ / cs_);
  const T scale = T(-1.0 / cs_);
  T* P = p_.data();
  T* Qv = data;  // Q^(r) lives in the caller's array; U ends up in P, then is copied back
  T* X = x_.data();
  const T* cpf = cp_fac_.data();
  const T* invf = inv_fac_.data();
  const T* alpha = alpha_.data();
  const Box grid{{0, 0, 0}, {Q - 1, N - 1, 0}};
  for_each(device_, grid, [=] GRIDSOLVE_HD(int x, int j, int) {
    const std::int64_t o = std::int64_t(j) * Q + x;
    Qv[o] *= scale;
    P[o] = T(0);
  });

  // One level: for rows j = first, first + step, ... (1-based), with h = 2^r,
  //   P_j <- P_j - [B^(r)]^-1 (P_{j-h} + P_{j+h} - Q_j)        (rows 0 and N+1 are zero)
  //   and, while reducing, Q_j <- Q_{j-h} + Q_{j+h} - 2 P_j.
  auto level = [&](int r, int first, int step, bool reducing) {
    const int h = 1 << r;
    const int count = first > N ? 0 : (N - first) / step + 1;
    if (count == 0) return;
    const int shifts = 1 << r;
    const T* cf = cpf + level_offset_[r];
    const T* inv = invf + level_offset_[r];
    const T* al = alpha + alpha_offset_[r];
#if GRIDSOLVE_HAVE_CUDA
    if (device_ == Device::cuda) {
      // The right-hand side v = P_{j-h} + P_{j+h} - Q_j once per (row, shift) in X
      // (shift fastest), then every (row, shift) line through the pipelined batched
      // Thomas (a warp per 32 lines, coalesced tiles), which leaves (B - 2 cos I)^-1 v
      // in X for the combine pass to weight by alpha and sum.
      for_each(device_, Box{{0, 0, 0}, {shifts - 1, Q - 1, count - 1}},
               [=] GRIDSOLVE_HD(int l, int x, int jj) {
                 const int j = first + jj * step;
                 const std::int64_t o = std::int64_t(j - 1) * Q + x;
                 const T v = (j - h >= 1 ? P[o - std::int64_t(h) * Q] : T(0)) +
                             (j + h <= N ? P[o + std::int64_t(h) * Q] : T(0)) - Qv[o];
                 X[(std::int64_t(jj) * Q + x) * shifts + l] = v;
               });
      tridiag::LineGeometry g;
      g.n = Q;
      g.count = std::int64_t(count) * shifts;
      g.inner = shifts;
      g.outer = std::int64_t(Q) * shifts;
      g.row_stride = shifts;
      tridiag::ShiftedLines sl;
      sl.sigma = shift_.data() + alpha_offset_[r];
      sl.sigma_period = shifts;
      sl.off = double(rho);
      sl.e_first = sl.e_mid = sl.e_last = diag_;
      tridiag::solve_shifted_lines_cuda(g, sl, X);
      for_each(device_, Box{{0, 0, 0}, {Q - 1, count - 1, 0}},
               [=] GRIDSOLVE_HD(int x, int jj, int) {
                 const int j = first + jj * step;
                 const T* xs = X + (std::int64_t(jj) * Q + x) * shifts;
                 T s = 0;
                 for (int l = 0; l < shifts; ++l) s += al[l] * xs[l];
                 const std::int64_t o = std::int64_t(j - 1) * Q + x;
                 const T pj = P[o] - s;
                 P[o] = pj;
                 if (reducing) {
                   const T ql = j - h >= 1 ? Qv[o - std::int64_t(h) * Q] : T(0);
                   const T qh = j + h <= N ? Qv[o + std::int64_t(h) * Q] : T(0);
                   Qv[o] = ql + qh - 2 * pj;
                 }
               });
      return;
    }
#endif
    // One system per (shift l, block row jj): forward sweep into X, back sweep in place.
    for_each(device_, Box{{0, 0, 0}, {shifts - 1, count - 1, 0}},
             [=] GRIDSOLVE_HD(int l, int jj, int) {
               const int j = first + jj * step;  // 1-based row
               const T* pl = j - h >= 1 ? P + std::int64_t(j - h - 1) * Q : nullptr;
               const T* ph = j + h <= N ? P + std::int64_t(j + h - 1) * Q : nullptr;
               const T* qj = Qv + std::int64_t(j - 1) * Q;
               T* xs = X + std::int64_t(jj) * Q * shifts + l;
               T dprev = 0;
               for (int x = 0; x < Q; ++x) {
                 const T v = (pl ? pl[x] : T(0)) + (ph ? ph[x] : T(0)) - qj[x];
                 const std::int64_t f = std::int64_t(x) * shifts + l;
                 dprev = (v - rho * dprev) * inv[f];
                 xs[std::int64_t(x) * shifts] = dprev;
               }
               const T a = al[l];
               T xn = dprev;
               xs[std::int64_t(Q - 1) * shifts] = a * xn;
               for (int x = Q - 2; x >= 0; --x) {
                 const std::int64_t f = std::int64_t(x) * shifts + l;
                 xn = xs[std::int64_t(x) * shifts] - cf[f] * xn;
                 xs[std::int64_t(x) * shifts] = a * xn;
               }
             });
    for_each(device_, Box{{0, 0, 0}, {Q - 1, count - 1, 0}}, [=] GRIDSOLVE_HD(int x, int jj, int) {
      const int j = first + jj * step;
      const T* xs = X + (std::int64_t(jj) * Q + x) * shifts;
      T s = 0;
      for (int l = 0; l < shifts; ++l) s += xs[l];
      const std::int64_t o = std::int64_t(j - 1) * Q + x;
      const T pj = P[o] - s;
      P[o] = pj;
      if (reducing) {
        const T ql = j - h >= 1 ? Qv[o - std::int64_t(h) * Q] : T(0);
        const T qh = j + h <= N ? Qv[o + std::int64_t(h) * Q] : T(0);
        Qv[o] = ql + qh - 2 * pj;
      }
    });
  };

  const int k = levels_;
  for (int r = 0; r + 1 < k; ++r) level(r, 1 << (r + 1), 1 << (r + 1), true);
  for (int r = k - 1; r >= 0; --r) level(r, 1 << r, 1 << (r + 1), false);
  copy_bytes(data, device_, P, device_, std::size_t(N) * Q * sizeof(T));
}

template class BlockCyclicReduction<float>;
template class BlockCyclicReduction<double>;

}  // namespace gridsolve::buneman
