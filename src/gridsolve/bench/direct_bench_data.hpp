// Random inputs shared by the direct-solver benchmarks (host arrays, never all zeros).
#pragma once
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace gridsolve::bench_data {

// a, b, c, d of `count` systems of n rows (layout-agnostic: every row alike), strongly
// diagonally dominant (|b| >= |a| + |c| + 1) so that repeated solves stay bounded.
template <class T>
void tridiagonal(std::size_t size, std::vector<T>& a, std::vector<T>& b, std::vector<T>& c,
                 std::vector<T>& d, std::uint64_t seed) {
  a.resize(size), b.resize(size), c.resize(size), d.resize(size);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::size_t i = 0; i < size; ++i) {
    a[i] = T(u(rng)), c[i] = T(u(rng)), d[i] = T(u(rng));
    b[i] = T((u(rng) < 0 ? -1 : 1) *
             (std::abs(double(a[i])) + std::abs(double(c[i])) + 1.0 + std::abs(u(rng))));
  }
}

template <class T>
std::vector<T> uniform(std::size_t size, std::uint64_t seed) {
  std::vector<T> v(size);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (T& x : v) x = T(u(rng));
  return v;
}

}  // namespace gridsolve::bench_data
