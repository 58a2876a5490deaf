// The tensor's reduced spectrum, one axis at a time and, on ranks, split: each rank
// evaluates the tensor on its share of the octant's rows (the expensive part: Newell's
// formulas at every offset) and transforms them along x; one all-to-all per component
// (the slab transpose, on the host) gives each rank every row of its kx range, which it
// transforms along y and z. One process is the one-rank case. Nothing whole is held on a
// rank: a run on ranks can take meshes whose tensor one host could not hold.
#include <fftw3.h>
#include <fmt/format.h>

#include <algorithm>
#include <complex>
#include <mutex>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/transform/demag_convolution.hpp"
#include "gridsolve/transform/demag_tensor.hpp"
#include "gridsolve/transform/fftw_calls.hpp"
#include "gridsolve/transform/slab_transpose.hpp"

namespace gridsolve::demag {

namespace {

// Odd components along each axis (xy: x, y; xz: x, z; yz: y, z).
constexpr bool odd[6][3] = {{false, false, false}, {false, false, false}, {false, false, false},
                            {true, true, false},   {true, false, true},   {false, true, true}};

// Padded index i along axis a -> the octant's offset index (>= 0) and the offset's sign,
// or -1 where the padding is. Periodic axes: index i is the offset i or i - n, whichever
// is nearer zero.
int fold(const Layout& l, int i, int a, int& sign) {
  const int n = l.n[std::size_t(a)], p = l.p[std::size_t(a)];
  sign = 1;
  if (l.periodic[std::size_t(a)]) {
    if (i <= n / 2) return i;
    sign = -1;
    return std::max(n - i, 0);
  }
  if (i < n) return i;
  if (i >= p - n + 1) {
    sign = -1;
    return p - i;
  }
  return -1;
}

struct FftwBuffer {
  explicit FftwBuffer(std::size_t bytes) : p(fftw_malloc(std::max<std::size_t>(bytes, 16))) {
    if (!p) throw Error("demag: out of memory for the tensor's transform", Error::Kind::runtime);
  }
  ~FftwBuffer() { fftw_free(p); }
  FftwBuffer(const FftwBuffer&) = delete;
  FftwBuffer& operator=(const FftwBuffer&) = delete;
  void* p;
};

}  // namespace

std::vector<double> tensor_spectrum(const Layout& l, std::array<double, 3> cell,
                                    const Periodicity& pbc, const std::vector<int>& kx_start) {
  const bool split = !kx_start.empty();
  const Communicator& comm = Communicator::world();
  const int ranks = split ? comm.size() : 1, me = split ? comm.rank() : 0;
  if (split)
    require(int(kx_start.size()) == ranks + 1 && kx_start.front() == 0 &&
                kx_start.back() == l.hx,
            "demag: the tensor's kx ranges must cover 0 .. hx, one per rank");
  const int px = l.p[0], py = l.p[1], pz = l.p[2], hx = l.hx;
  const int ry = py / 2 + 1, rz = pz / 2 + 1;
  const int kx0 = split ? kx_start[std::size_t(me)] : 0;
  const int hk = split ? kx_start[std::size_t(me) + 1] - kx0 : hx;
  // The tensor on the non-negative octant of offsets; the rest follows by parity. Along a
  // periodic axis the offsets wrap: 0 .. n/2 is the octant, summed over the images.
  std::array<int, 3> o{};
  for (int a = 0; a < 3; ++a) o[a] = l.periodic[a] ? l.n[a] / 2 + 1 : l.n[a];
  // The octant's rows (Y, Z), row = Z o[1] + Y, shared out in runs.
  const int rows = o[1] * o[2];
  SlabSplit sp;
  sp.t = 1;
  sp.s = 0;
  sp.rank = me;
  sp.ranks = ranks;
  for (int r = 0; r <= ranks; ++r) {
    sp.t_start.push_back(int(std::int64_t(r) * rows / ranks));
    sp.s_start.push_back(2 * (split ? kx_start[std::size_t(r)] : hx * r));  // reals
  }
  const int row0 = sp.t_start[std::size_t(me)], my_rows = sp.t_count(me);
  std::vector<Tensor> oct(std::size_t(my_rows) * o[0]);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t q = 0; q < std::int64_t(oct.size()); ++q) {
    const int row = row0 + int(q / o[0]);
    const int idx[3] = {int(q % o[0]), row % o[1], row / o[1]};
    oct[std::size_t(q)] = image_sum({idx[0], idx[1], idx[2]}, l.n, cell, pbc);
    // Half way round an even periodic axis, +n/2 and -n/2 are the same offset: a component
    // odd along that axis is zero there (the mean of its two values).
    for (int a = 0; a < 3; ++a)
      if (l.periodic[std::size_t(a)] && l.n[std::size_t(a)] % 2 == 0 &&
          idx[a] == l.n[std::size_t(a)] / 2)
        for (int c = 0; c < 6; ++c)
          if (odd[c][a]) oct[std::size_t(q)][std::size_t(c)] = 0;
  }
  // x: each row as a padded line of px reals (odd components change sign with the
  // offset), real to complex. Plans are made once; the threads run them on their own
  // arrays (FFTW's new-array execute is thread safe).
  FftwBuffer line_in(sizeof(double) * px), line_out(sizeof(fftw_complex) * hx);
  std::unique_lock<std::mutex> planning(fftw_planner_mutex());
  const fftw_plan x_plan =
      fftw_plan_dft_r2c_1d(px, static_cast<double*>(line_in.p),
                           static_cast<fftw_complex*>(line_out.p), FFTW_ESTIMATE);
  FftwBuffer plane(sizeof(fftw_complex) * std::size_t(py) * pz);
  const fftw_plan yz_plan =
      pz > 1 ? fftw_plan_dft_2d(pz, py, static_cast<fftw_complex*>(plane.p),
                                static_cast<fftw_complex*>(plane.p), FFTW_FORWARD, FFTW_ESTIMATE)
             : fftw_plan_dft_1d(py, static_cast<fftw_complex*>(plane.p),
                                static_cast<fftw_complex*>(plane.p), FFTW_FORWARD, FFTW_ESTIMATE);
  planning.unlock();
  const std::array<int, 3> slab_dims{2 * hx, rows, 1};
  std::vector<double> slab(std::size_t(2) * hx * my_rows), lines;
  if (split) lines.resize(std::size_t(2) * hk * rows);
  std::vector<double> send(std::max(slab.size(), lines.size())), receive(send.size());
  const double scale = -1.0 / (double(px) * py * pz);
  std::vector<double> result(std::size_t(6) * rz * ry * hk, 0.0);
  for (int c = 0; c < 6; ++c) {
    if (l.thin() && (c == xz || c == yz)) continue;  // zero in a single layer
#pragma omp parallel
    {
      std::vector<double> in(static_cast<std::size_t>(px));
      std::vector<std::complex<double>> out(static_cast<std::size_t>(hx));
#pragma omp for schedule(static)
      for (int r = 0; r < my_rows; ++r) {
        for (int i = 0; i < px; ++i) {
          int sx;
          const int X = fold(l, i, 0, sx);
          double v = X >= 0 ? oct[std::size_t(r) * o[0] + std::size_t(X)][std::size_t(c)] : 0.0;
          if (odd[c][0]) v *= sx;
          in[std::size_t(i)] = v;
        }
        fftw_execute_dft_r2c(x_plan, in.data(), reinterpret_cast<fftw_complex*>(out.data()));
        std::copy_n(reinterpret_cast<const double*>(out.data()), 2 * hx,
                    slab.data() + std::size_t(2) * hx * r);
      }
    }
    // Every row of this rank's kx range (one process: all of them, as they are).
    const double* by_kx = slab.data();
    if (split) {
      slabs_to_lines(Device::cpu, sp, slab_dims, static_cast<const double*>(slab.data()),
                     lines.data(), send.data(), receive.data());
      by_kx = lines.data();
    }
    // y and z: per kx the padded plane from the rows (odd components change sign with
    // the offsets), transformed; the transform is real (each component is even or odd
    // along every axis). The non-negative frequencies of y and z are kept: the product
    // restores the rest by parity.
#pragma omp parallel
    {
      std::vector<std::complex<double>> pl(static_cast<std::size_t>(py) * pz);
#pragma omp for schedule(static)
      for (int kx = 0; kx < hk; ++kx) {
        for (int k = 0; k < pz; ++k) {
          int sz;
          const int Z = fold(l, k, 2, sz);
          for (int j = 0; j < py; ++j) {
            int sy;
            const int Y = fold(l, j, 1, sy);
            std::complex<double> v{0, 0};
            if (Y >= 0 && Z >= 0) {
              const double* at = by_kx + 2 * (std::size_t(Z * o[1] + Y) * hk + kx);
              v = {at[0], at[1]};
              if (odd[c][1]) v *= double(sy);
              if (odd[c][2]) v *= double(sz);
            }
            pl[std::size_t(k) * py + j] = v;
          }
        }
        fftw_execute_dft(yz_plan, reinterpret_cast<fftw_complex*>(pl.data()),
                         reinterpret_cast<fftw_complex*>(pl.data()));
        for (int kz = 0; kz < rz; ++kz)
          for (int ky = 0; ky < ry; ++ky)
            result[((std::size_t(c) * rz + kz) * ry + ky) * hk + kx] =
                scale * pl[std::size_t(kz) * py + ky].real();
      }
    }
  }
  planning.lock();
  fftw_destroy_plan(x_plan);
  fftw_destroy_plan(yz_plan);
  return result;
}

}  // namespace gridsolve::demag
