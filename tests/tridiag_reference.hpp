// Random diagonally dominant tridiagonal batches and LAPACK gtsv reference solutions.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gridsolve/solve/tridiag/tridiagonal.hpp"

extern "C" {
void dgtsv_(const int* n, const int* nrhs, double* dl, double* d, double* du, double* b,
            const int* ldb, int* info);
}

namespace gridsolve::testing {

// A batch in one layout, the coefficients random and variable (the case that exposes a
// wrong cyclic-reduction factor), diagonals of random sign, dominance margin >= 0.1.
template <class T>
struct RandomBatch {
  int n = 0, count = 0;
  tridiag::Layout layout = tridiag::Layout::strided;
  std::vector<T> a, b, c, d;

  RandomBatch(int n_, int count_, tridiag::Layout layout_, std::uint64_t seed)
      : n(n_), count(count_), layout(layout_) {
    const std::size_t size = std::size_t(n) * count;
    a.resize(size), b.resize(size), c.resize(size), d.resize(size);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0), margin(0.1, 1.0);
    for (int s = 0; s < count; ++s)
      for (int i = 0; i < n; ++i) {
        const std::size_t k = index(s, i);
        const double ai = i > 0 ? u(rng) : 0.0, ci = i + 1 < n ? u(rng) : 0.0;
        const double sign = u(rng) < 0 ? -1.0 : 1.0;
        a[k] = T(ai);
        c[k] = T(ci);
        b[k] = T(sign * (std::abs(ai) + std::abs(ci) + margin(rng)));
        d[k] = T(u(rng));
      }
  }
  std::size_t index(int s, int i) const {
    return layout == tridiag::Layout::strided ? std::size_t(s) * n + i : std::size_t(i) * count + s;
  }
  tridiag::Batch<T> batch(T* rhs) const {
    return tridiag::Batch<T>{a.data(), b.data(), c.data(), rhs, n, count, layout};
  }
  // LAPACK dgtsv (partial pivoting, in double) for every system.
  std::vector<double> reference() const {
    std::vector<double> x(d.size());
    std::vector<double> dl(n), dd(n), du(n), rhs(n);
    for (int s = 0; s < count; ++s) {
      for (int i = 0; i < n; ++i) {
        const std::size_t k = index(s, i);
        dd[i] = b[k], rhs[i] = d[k];
        if (i > 0) dl[i - 1] = a[k];
        if (i + 1 < n) du[i] = c[k];
      }
      int info = 0, one = 1, nn = n;
      dgtsv_(&nn, &one, dl.data(), dd.data(), du.data(), rhs.data(), &nn, &info);
      for (int i = 0; i < n; ++i) x[index(s, i)] = rhs[i];
    }
    return x;
  }
};

// max over systems of max |x - ref| / max |ref|.
template <class T>
double relative_error(const std::vector<T>& x, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    num = std::max(num, std::abs(double(x[k]) - ref[k]));
    den = std::max(den, std::abs(ref[k]));
  }
  return den > 0 ? num / den : num;
}

}  // namespace gridsolve::testing
