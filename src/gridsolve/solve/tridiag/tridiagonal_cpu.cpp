// CPU tridiagonal solves: Thomas, CR, PCR per system, OpenMP over systems; partitioned
// elimination with OpenMP over partitions for long systems.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "gridsolve/solve/tridiag/cyclic_reduction.hpp"
#include "gridsolve/solve/tridiag/partitioned.hpp"
#include "gridsolve/solve/tridiag/thomas.hpp"
#include "gridsolve/solve/tridiag/tridiagonal_cpu.hpp"

namespace gridsolve::tridiag {

namespace {

// One long contiguous system by partitions; the reduced system is solved by Thomas.
template <class T>
int partitioned_contiguous(int n, const T* a, const T* b, const T* c, T* d) {
  const std::int64_t parts = std::max<std::int64_t>(1, std::min<std::int64_t>(n / 2, n / 64));
  std::vector<T> scratch(3 * std::size_t(n) + 5 * 2 * std::size_t(parts));
  T *Bp = scratch.data(), *F = Bp + n, *G = F + n;
  T *ra = G + n, *rb = ra + 2 * parts, *rc = rb + 2 * parts, *rd = rc + 2 * parts,
    *rcp = rd + 2 * parts;
  int bad = -1;
#pragma omp parallel for schedule(static) if (parts > 1)
  for (std::int64_t p = 0; p < parts; ++p) {
    const std::int64_t s = partition::first_row(p, parts, n);
    const std::int64_t e = partition::first_row(p + 1, parts, n) - 1;
    const int r = partition::reduce(s, e, std::int64_t(n), a, b, c, d, Bp, F, G, ra, rb, rc, rd, p);
    if (r >= 0) {
#pragma omp critical(gridsolve_tridiag_pivot)
      bad = bad < 0 ? r : std::min(bad, r);
    }
  }
  if (bad >= 0) return bad;
  const int r = thomas(int(2 * parts), ra, rb, rc, rd, rcp, 1);
  if (r >= 0) return int(partition::first_row(r / 2, parts, n));
#pragma omp parallel for schedule(static) if (parts > 1)
  for (std::int64_t p = 0; p < parts; ++p)
    partition::finish(partition::first_row(p, parts, n), partition::first_row(p + 1, parts, n) - 1,
                      d, Bp, F, G, rd, p);
  return -1;
}

template <class T>
int solve_one(const Batch<T>& batch, Method method, int s, std::vector<T>& work) {
  const std::int64_t base = s * batch.system_stride(), st = batch.row_stride();
  const int n = batch.n;
  const T *a = batch.a + base, *b = batch.b + base, *c = batch.c + base;
  T* d = batch.d + base;
  switch (method) {
    case Method::cyclic_reduction:
      work.resize(4 * std::size_t(n));
      return cyclic_reduction(n, a, b, c, d, st, work.data());
    case Method::parallel_cyclic_reduction:
      work.resize(8 * std::size_t(n));
      return parallel_cyclic_reduction(n, a, b, c, d, st, work.data());
    case Method::partitioned: {
      if (n < 4) break;
      work.resize(4 * std::size_t(n));
      T *wa = work.data(), *wb = wa + n, *wc = wb + n, *wd = wc + n;
      for (int i = 0; i < n; ++i) {
        wa[i] = i > 0 ? a[i * st] : T(0);
        wb[i] = b[i * st];
        wc[i] = i + 1 < n ? c[i * st] : T(0);
        wd[i] = d[i * st];
      }
      const int r = partitioned_contiguous(n, wa, wb, wc, wd);
      if (r >= 0) return r;
      for (int i = 0; i < n; ++i) d[i * st] = wd[i];
      return -1;
    }
    default:
      break;
  }
  work.resize(std::size_t(n));
  // Thomas writes its modified super-diagonal to a contiguous scratch row.
  if (st == 1) return thomas(n, a, b, c, d, work.data(), 1);
  // Non-unit stride: gather to unit stride, which keeps the scratch row contiguous.
  work.resize(5 * std::size_t(n));
  T *wa = work.data(), *wb = wa + n, *wc = wb + n, *wd = wc + n, *wp = wd + n;
  for (int i = 0; i < n; ++i) {
    wa[i] = a[i * st], wb[i] = b[i * st], wc[i] = c[i * st], wd[i] = d[i * st];
  }
  const int r = thomas(n, wa, wb, wc, wd, wp, 1);
  if (r >= 0) return r;
  for (int i = 0; i < n; ++i) d[i * st] = wd[i];
  return -1;
}

}  // namespace

// Thomas on the interleaved layout, vectorized across systems: row i of a chunk of
// adjacent systems is contiguous, so the inner loop runs over systems.
template <class T>
std::int64_t thomas_interleaved(const Batch<T>& batch) {
  constexpr int chunk = 256;
  const int n = batch.n, count = batch.count;
  const std::int64_t st = count;
  std::int64_t bad = -1;
  const int chunks = (count + chunk - 1) / chunk;
#pragma omp parallel
  {
    std::vector<T> cp(std::size_t(n) * chunk);
#pragma omp for schedule(static)
    for (int q = 0; q < chunks; ++q) {
      const int s0 = q * chunk, w = std::min(chunk, count - s0);
      std::int64_t local_bad = -1;
      for (int i = 0; i < n; ++i) {
        const T* a = batch.a + i * st + s0;
        const T* b = batch.b + i * st + s0;
        const T* c = batch.c + i * st + s0;
        T* d = batch.d + i * st + s0;
        T* cpi = cp.data() + std::size_t(i) * chunk;
        const T* cpm = i > 0 ? cpi - chunk : cpi;
        const T* dm = i > 0 ? d - st : d;
        const bool last = i + 1 == n;
        int fail = 0;
#pragma omp simd reduction(| : fail)
        for (int s = 0; s < w; ++s) {
          const T t = i > 0 ? a[s] * cpm[s] : T(0);
          const T den = b[s] - t;
          fail |= !pivot_ok(den, abs_of(b[s]) + abs_of(t));
          const T inv = T(1) / den;
          cpi[s] = last ? T(0) : c[s] * inv;
          d[s] = (d[s] - (i > 0 ? a[s] * dm[s] : T(0))) * inv;
        }
        if (fail && local_bad < 0) {
          for (int s = 0; s < w; ++s) {
            const T t = i > 0 ? a[s] * cpm[s] : T(0);
            if (!pivot_ok(b[s] - t, abs_of(b[s]) + abs_of(t))) {
              local_bad = std::int64_t(s0 + s) * n + i;
              break;
            }
          }
        }
      }
      for (int i = n - 2; i >= 0; --i) {
        T* d = batch.d + i * st + s0;
        const T* dn = d + st;
        const T* cpi = cp.data() + std::size_t(i) * chunk;
#pragma omp simd
        for (int s = 0; s < w; ++s) d[s] -= cpi[s] * dn[s];
      }
      if (local_bad >= 0) {
#pragma omp critical(gridsolve_tridiag_pivot)
        bad = bad < 0 ? local_bad : std::min(bad, local_bad);
      }
    }
  }
  return bad;
}

template <class T>
std::int64_t solve_cpu(const Batch<T>& batch, Method method) {
  std::int64_t bad = -1;
  if (method == Method::thomas && batch.layout == Layout::interleaved && batch.count > 1)
    return thomas_interleaved(batch);
  if (method == Method::partitioned && batch.count == 1) {
    std::vector<T> work;
    const int r = solve_one(batch, method, 0, work);
    return r >= 0 ? r : -1;
  }
#pragma omp parallel
  {
    std::vector<T> work;
#pragma omp for schedule(static)
    for (int s = 0; s < batch.count; ++s) {
      const int r = solve_one(batch, method, s, work);
      if (r >= 0) {
        const std::int64_t where = std::int64_t(s) * batch.n + r;
#pragma omp critical(gridsolve_tridiag_pivot)
        bad = bad < 0 ? where : std::min(bad, where);
      }
    }
  }
  return bad;
}

template std::int64_t solve_cpu<float>(const Batch<float>&, Method);
template std::int64_t solve_cpu<double>(const Batch<double>&, Method);

}  // namespace gridsolve::tridiag
