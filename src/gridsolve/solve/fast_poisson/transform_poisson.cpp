// TransformPoisson: scale, transform, solve lines (or divide), transform back; the loop
// bodies are single-source and run on either device.
#include "gridsolve/solve/fast_poisson/transform_poisson.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/solve/tridiag/shifted_lines.hpp"

namespace gridsolve::fast_poisson {

AxisKind axis_kind(Side lo, Side hi) {
  if (lo == Side::periodic || hi == Side::periodic) {
    require(lo == hi, "a periodic axis needs both of its sides periodic");
    return AxisKind::pp;
  }
  if (lo == Side::dirichlet) return hi == Side::dirichlet ? AxisKind::dd : AxisKind::dn;
  return hi == Side::dirichlet ? AxisKind::nd : AxisKind::nn;
}

std::string to_string(AxisKind k) {
  switch (k) {
    case AxisKind::dd:
      return "dirichlet-dirichlet";
    case AxisKind::nd:
      return "neumann-dirichlet";
    case AxisKind::dn:
      return "dirichlet-neumann";
    case AxisKind::nn:
      return "neumann-neumann";
    case AxisKind::pp:
      return "periodic";
  }
  return "?";
}

namespace {

// Everything a loop body needs, by value. The loops run over a dense array of m values
// per axis whose index 0 is unknown `off` of the n of the whole problem (on one rank m = n
// and off = 0; on several, a slab or the lines of a range of modes).
struct Params {
  int m[3];
  int n[3];
  int off[3];
  AxisKind kind[3];
  bool transformed[3];
  double c[3];  // c_a = k prod_{b != a} h_b / h_a
  int line_axis;
  GRIDSOLVE_HD std::int64_t stride(int a) const {
    return a == 0 ? 1 : a == 1 ? std::int64_t(m[0]) : std::int64_t(m[0]) * m[1];
  }
  // sum over transformed axes of c_a * eigenvalue of the mode at index idx[a]
  GRIDSOLVE_HD double shift(const int idx[3]) const {
    double s = 0;
    for (int a = 0; a < 3; ++a)
      if (transformed[a]) s += c[a] * mode_eigenvalue(kind[a], n[a], idx[a] + off[a]);
    return s;
  }
};

// c_a = k prod_{b != a} h_b / h_a on the problem's axes, 0 beyond them.
std::array<double, 3> axis_coefficients(const TransformProblem& p) {
  std::array<double, 3> c{0, 0, 0};
  for (int a = 0; a < p.dims; ++a) {
    c[std::size_t(a)] = p.k / p.h[std::size_t(a)];
    for (int b = 0; b < p.dims; ++b)
      if (b != a) c[std::size_t(a)] *= p.h[std::size_t(b)];
  }
  return c;
}

}  // namespace

int line_axis_of(const TransformProblem& p, bool on_ranks) {
  // Lines run along the slowest non-periodic axis (on the GPU one thread per line reads
  // adjacent addresses); periodic axes are transformed, except that slabs need an axis
  // whose lines the transpose makes whole: on ranks the slowest, periodic or not.
  for (int a = p.dims - 1; a >= 0; --a)
    if (axis_kind(p.sides[a][0], p.sides[a][1]) != AxisKind::pp) return a;
  return on_ranks ? p.dims - 1 : -1;
}

template <class T>
TransformPoisson<T>::TransformPoisson(Device device, const TransformProblem& p, SlabSplit split)
    : device_(device), problem_(p), split_(std::move(split)) {
  require(p.dims == 2 || p.dims == 3, fmt::format("dims must be 2 or 3, got {}", p.dims));
  require(p.k > 0, fmt::format("k must be positive, got {}", p.k));
  bool any_dirichlet = false;
  for (int a = 0; a < 3; ++a) {
    if (a >= p.dims) {
      shape_.m[a] = 1;
      shape_.kind[a] = AxisKind::dd;
      continue;
    }
    shape_.m[a] = p.m[a];
    shape_.kind[a] = axis_kind(p.sides[a][0], p.sides[a][1]);
    const int need = shape_.kind[a] == AxisKind::nn || shape_.kind[a] == AxisKind::pp ? 2 : 1;
    require(p.m[a] >= need, fmt::format("axis {} ({}) needs at least {} unknowns, got {}", a,
                                        to_string(shape_.kind[a]), need, p.m[a]));
    require(p.h[a] > 0, fmt::format("spacing on axis {} must be positive, got {}", a, p.h[a]));
    any_dirichlet = any_dirichlet || shape_.kind[a] == AxisKind::dd ||
                    shape_.kind[a] == AxisKind::nd || shape_.kind[a] == AxisKind::dn;
  }
  singular_ = !any_dirichlet;
  line_axis_ = line_axis_of(p, split_.several());
  for (int a = 0; a < p.dims; ++a) shape_.transformed[a] = a != line_axis_;
  n_ = shape_.m;
  std::array<int, 3> lines = n_;
  if (split_.several()) {
    require(
        split_.t == line_axis_ && split_.s >= 0 && split_.s < p.dims && split_.s != split_.t,
        "fft on several ranks splits the line axis into slabs and a transformed axis into lines");
    shape_.m = split_.slab_extent(n_, split_.rank);  // each rank transforms its own slab
    lines = split_.lines_extent(n_, split_.rank);
  }
#if GRIDSOLVE_HAVE_CUDA
  // Every axis periodic on GPUs: complex spectra by cuFFT (on slabs on several ranks), three
  // passes a solve on one GPU where the per-axis real transforms take a dozen.
  if (device == Device::cuda && line_axis_of(p) < 0) {
    periodic_ =
        split_.several()
            ? make_cufft_periodic_spectral_on_slabs<T>(p.dims, n_, axis_coefficients(p), split_)
            : make_cufft_periodic_spectral<T>(p.dims, n_, axis_coefficients(p));
    return;
  }
  transforms_ =
      device == Device::cuda ? make_cufft_transforms<T>(shape_) : make_fftw_transforms<T>(shape_);
#else
  transforms_ = make_fftw_transforms<T>(shape_);
#endif
  if (line_axis_ >= 0 && shape_.kind[line_axis_] == AxisKind::pp) {
    TransformShape along;  // the lines: the line axis alone transformed
    along.m = lines;
    along.kind = shape_.kind;
    along.transformed[line_axis_] = true;
#if GRIDSOLVE_HAVE_CUDA
    line_transforms_ =
        device == Device::cuda ? make_cufft_transforms<T>(along) : make_fftw_transforms<T>(along);
#else
    line_transforms_ = make_fftw_transforms<T>(along);
#endif
  }
  if (line_axis_ >= 0) {
    const std::size_t size = std::size_t(lines[0]) * lines[1] * lines[2];
    // The GPU keeps its line scratch in the tridiagonal back end; this one serves there
    // only the singular constant-mode line. Transformed lines need neither.
    if (!line_transforms_) {
      scratch_ = Buffer<T>(
          device, device == Device::cuda && !singular_ ? 1 : std::max<std::size_t>(size, 1));
      sigma_ =
          Buffer<double>(device, std::max<std::size_t>(size / std::size_t(lines[line_axis_]), 1));
    }
    if (split_.several()) {
      const std::size_t slab = std::size_t(shape_.m[0]) * shape_.m[1] * shape_.m[2];
      lines_ = Buffer<T>(device, std::max<std::size_t>(size, 1));
      send_ = Buffer<T>(device, std::max<std::size_t>(std::max(slab, size), 1));
      receive_ = Buffer<T>(device, std::max<std::size_t>(std::max(slab, size), 1));
    }
  }
}

template <class T>
TransformPoisson<T>::~TransformPoisson() = default;

template <class T>
void TransformPoisson<T>::solve(T* data) {
  if (periodic_) {
    periodic_->solve(data);
    return;
  }
  Params q{};
  const TransformProblem& p = problem_;
  const std::array<double, 3> coef = axis_coefficients(p);
  for (int a = 0; a < 3; ++a) {
    q.m[a] = shape_.m[a];
    q.n[a] = n_[a];
    q.off[a] = 0;  // the slab: whole along every transformed axis
    q.kind[a] = shape_.kind[a];
    q.transformed[a] = shape_.transformed[a];
    q.c[a] = coef[std::size_t(a)];
  }
  q.line_axis = line_axis_;
  double norm = 1;
  for (int a = 0; a < 3; ++a)
    if (q.transformed[a]) norm *= transform_norm(q.kind[a], q.m[a]);
  const double inv_norm = 1.0 / norm;
  const Box all{{0, 0, 0}, {q.m[0] - 1, q.m[1] - 1, q.m[2] - 1}};

  // Multiply by the inverse dual-cell weights of the transformed axes (turning D_a into
  // the ghost-mirror G_a that the transform diagonalizes) and by 1 / norm.
  for_each(device_, all, [=] GRIDSOLVE_HD(int i, int j, int k) {
    const int idx[3] = {i, j, k};
    double w = inv_norm;
    for (int a = 0; a < 3; ++a)
      if (q.transformed[a]) w /= cell_weight(q.kind[a], q.n[a], idx[a]);
    data[i + q.stride(1) * j + q.stride(2) * k] *= T(w);
  });
  transforms_->forward(data);

  if (line_axis_ < 0) {  // one rank only
    for_each(device_, all, [=] GRIDSOLVE_HD(int i, int j, int k) {
      const int idx[3] = {i, j, k};
      const double s = q.shift(idx);
      T& v = data[i + q.stride(1) * j + q.stride(2) * k];
      v = s > 0 ? T(double(v) / s) : T(0);
    });
  } else {
    // On several ranks the lines of this rank's modes (every t) come from every slab.
    T* const slab = data;
    if (split_.several()) {
      data = lines_.data();
      slabs_to_lines(device_, split_, n_, slab, data, send_.data(), receive_.data());
      const std::array<int, 3> ml = split_.lines_extent(n_, split_.rank);
      for (int a = 0; a < 3; ++a) q.m[a] = ml[a];
      q.off[split_.s] = split_.s_start[std::size_t(split_.rank)];
    }
    const Box all_lines{{0, 0, 0}, {q.m[0] - 1, q.m[1] - 1, q.m[2] - 1}};
    const int t = line_axis_;
    if (line_transforms_) {
      // A periodic line axis: its whole lines transformed as well, every mode divided by
      // its eigenvalue and the constant one set to zero (the zero-mean solution), as the
      // one-rank path does with every axis at once.
      const double inv_norm_t = 1.0 / transform_norm(q.kind[t], q.m[t]);
      q.transformed[t] = true;
      line_transforms_->forward(data);
      for_each(device_, all_lines, [=] GRIDSOLVE_HD(int i, int j, int k) {
        const int idx[3] = {i, j, k};
        const double s = q.shift(idx);
        T& v = data[i + q.stride(1) * j + q.stride(2) * k];
        v = s > 0 ? T(double(v) * inv_norm_t / s) : T(0);
      });
      line_transforms_->backward(data);
      lines_to_slabs(device_, split_, n_, static_cast<const T*>(data), slab, send_.data(),
                     receive_.data());
      transforms_->backward(slab);
      return;
    }
    Box lines = all_lines;
    lines.hi[t] = 0;
    T* cp = scratch_.data();
    const bool singular = singular_;
    // On the GPU the regular lines go to the pipelined batched Thomas (a warp per 32
    // lines, coefficients computed, not stored); the loop below then only treats the
    // singular constant-mode line, if any.
    bool only_pinned = false;
#if GRIDSOLVE_HAVE_CUDA
    if (device_ == Device::cuda) {
      const std::int64_t st = q.stride(t), mt = q.m[t];
      double* sig = sigma_.data();
      for_each(device_, lines, [=] GRIDSOLVE_HD(int i, int j, int k) {
        const int idx[3] = {i, j, k};
        const std::int64_t o = i + q.stride(1) * j + q.stride(2) * k;
        sig[(o / (st * mt)) * st + o % st] = q.shift(idx);
      });
      tridiag::LineGeometry g;
      g.n = q.m[t];
      g.count = std::int64_t(q.m[0]) * q.m[1] * q.m[2] / q.m[t];
      g.inner = st;
      g.outer = st * mt;
      g.row_stride = st;
      tridiag::ShiftedLines sl;
      sl.sigma = sig;
      sl.off = -q.c[t];
      const AxisKind kt = q.kind[t];
      const int m = q.m[t];
      sl.w_first = cell_weight(kt, m, 0);
      sl.w_last = cell_weight(kt, m, m - 1);
      sl.e_first = q.c[t] * stiffness_diagonal(kt, m, 0);
      sl.e_mid = q.c[t] * 2.0;
      sl.e_last = q.c[t] * stiffness_diagonal(kt, m, m - 1);
      sl.skip_zero_shift = singular;
      if (g.count > 0) tridiag::solve_shifted_lines_cuda(g, sl, data);  // a rank may own no mode
      only_pinned = true;
    }
#endif
    if (!only_pinned || singular)
      for_each(device_, lines, [=] GRIDSOLVE_HD(int i, int j, int k) {
        const int idx[3] = {i, j, k};
        const double sigma = q.shift(idx);
        const std::int64_t st = q.stride(t);
        T* d = data + i + q.stride(1) * j + q.stride(2) * k;
        T* w = cp + i + q.stride(1) * j + q.stride(2) * k;
        const int m = q.m[t];
        const AxisKind kt = q.kind[t];
        const T off = T(-q.c[t]);
        // The constant mode of an operator without Dirichlet sides: project b onto the
        // range (zero sum), pin x_0 = 0, solve the rest, then remove the weighted mean.
        const bool pinned = singular && sigma == 0.0;
        if (only_pinned && !pinned) return;
        int r0 = 0;
        if (pinned) {
          T sum = 0;
          for (int r = 0; r < m; ++r) sum += d[r * st];
          const T mean = sum / T(m);
          for (int r = 0; r < m; ++r) d[r * st] -= mean;
          d[0] = 0;
          r0 = 1;
        }
        T cprev = 0, dprev = 0;
        for (int r = r0; r < m; ++r) {
          const T diag = T(sigma * cell_weight(kt, m, r) + q.c[t] * stiffness_diagonal(kt, m, r));
          const T a = r > r0 ? off : T(0);
          const T inv = T(1) / (diag - a * cprev);
          cprev = r + 1 < m ? off * inv : T(0);
          dprev = (d[r * st] - a * dprev) * inv;
          w[r * st] = cprev;
          d[r * st] = dprev;
        }
        T x = dprev;
        for (int r = m - 2; r >= r0; --r) {
          x = d[r * st] - w[r * st] * x;
          d[r * st] = x;
        }
        if (pinned) {
          T sw = 0, swx = 0;
          for (int r = 0; r < m; ++r) {
            const T cw = T(cell_weight(kt, m, r));
            sw += cw;
            swx += cw * d[r * st];
          }
          const T mean = swx / sw;
          for (int r = 0; r < m; ++r) d[r * st] -= mean;
        }
      });
    if (split_.several()) {
      lines_to_slabs(device_, split_, n_, static_cast<const T*>(data), slab, send_.data(),
                     receive_.data());
      data = slab;
    }
  }
  transforms_->backward(data);
}

template class TransformPoisson<float>;
template class TransformPoisson<double>;

}  // namespace gridsolve::fast_poisson
