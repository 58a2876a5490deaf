// DemagOnRanks: slabs, local transforms along x and y, one all-to-all per component and way,
// the transform along the slab axis and the tensor product on each rank's kx range.
// Compiled as CUDA in a CUDA build.
#include "gridsolve/transform/demag_on_ranks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <span>
#include <utility>

#include "gridsolve/core/box.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/exec/device_link.hpp"
#include "gridsolve/exec/peer_memory.hpp"
#include "gridsolve/transform/demag_convolution.hpp"
#include "gridsolve/transform/demag_product.hpp"

#if GRIDSOLVE_HAVE_CUDA
#include <cuda_runtime.h>

#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/cuda_launch.cuh"
#include "gridsolve/transform/demag_column_pass.hpp"
#include "gridsolve/transform/stockham_fft.hpp"
#endif

namespace gridsolve::demag {

// The fused path's state (GPU builds): the columns in the layout messages leave from
// (component, kx, this slab's rows: each peer's range of kx one run per component), the
// pieces that arrive (component, sender, this rank's kx, the sender's rows), the tensor by
// column for this rank's kx, the inverse x transform reading the columns, and the stream
// the messages run on with the events that order it against the transforms.
template <class T>
struct DemagOnRanks<T>::FusedColumns {
#if GRIDSOLVE_HAVE_CUDA
  Buffer<T> columns, arrived, kernel, twiddle;
  // Direct: every rank's columns mapped here (the column pass reads and writes the peers'
  // pieces in place; declared after `columns`, so unmapped everywhere before it is freed).
  std::unique_ptr<PeerMemory> peers;
  std::unique_ptr<PeerFence> fence;
  std::unique_ptr<LineFft<T>> x_inv;
  ColumnPassArgs<T> pass;
  // Messages: the stream they run on, and the events that order it against the transforms.
  // ready[c]: component c is in columns; sent: the pieces have all arrived; done: the
  // column pass has run; back[c]: component c's columns are home.
  cudaStream_t link = nullptr;
  cudaEvent_t ready[3] = {}, sent = nullptr, done = nullptr, back[3] = {};

  FusedColumns() {
    cuda::check(cudaStreamCreateWithFlags(&link, cudaStreamNonBlocking), "link stream");
    for (cudaEvent_t* e : events())
      cuda::check(cudaEventCreateWithFlags(e, cudaEventDisableTiming), "link event");
  }
  ~FusedColumns() {
    cudaStreamSynchronize(link);
    for (cudaEvent_t* e : events()) cudaEventDestroy(*e);
    cudaStreamDestroy(link);
  }
  std::array<cudaEvent_t*, 8> events() {
    return {&ready[0], &ready[1], &ready[2], &sent, &done, &back[0], &back[1], &back[2]};
  }
  FusedColumns(const FusedColumns&) = delete;
  FusedColumns& operator=(const FusedColumns&) = delete;
#endif
};

std::shared_ptr<const Decomposition> slab_decomposition(std::array<int, 3> n,
                                                        std::array<bool, 3> periodic) {
  const Communicator& comm = Communicator::world();
  const int t = n[2] > 1 ? 2 : 1, dims = n[2] > 1 ? 3 : 2;
  std::array<int, 3> grid{1, 1, 1};
  grid[std::size_t(t)] = comm.size();
  std::array<bool, 3> wraps{};
  for (int a = 0; a < dims; ++a) wraps[std::size_t(a)] = periodic[std::size_t(a)] && n[std::size_t(a)] > 1;
  const Box cells{{0, 0, 0}, {n[0] - 1, n[1] - 1, n[2] - 1}, Centring::cell()};
  return std::make_shared<const Decomposition>(cells, dims, comm.size(), wraps, grid);
}

template <class T>
DemagOnRanks<T>::DemagOnRanks(Device d, std::array<int, 3> n, std::array<double, 3> cell,
                              Periodicity pbc, PeerPath path)
    : device_(d), layout_(Layout::make(n, FftMode::skip_zeros, pbc.axis)) {
  for (int a = 0; a < 3; ++a)
    require(cell[a] > 0 && std::isfinite(cell[a]),
            fmt::format("demag: cell size along axis {} must be positive, got {}", a, cell[a]));
  require(pbc.images >= 0 && pbc.images <= DemagConvolution<T>::max_images,
          fmt::format("demag: periodic images must be 0 .. {}, got {}",
                      DemagConvolution<T>::max_images, pbc.images));
  const Communicator& comm = Communicator::world();
  const int ranks = comm.size(), me = comm.rank();
  const Layout& l = layout_;
  t_ = n[2] > 1 ? 2 : 1;
  const int nt = n[std::size_t(t_)], hx = l.hx, pt = l.p[std::size_t(t_)];
  require(nt >= 2 * ranks || ranks == 1,
          fmt::format("demag on {} ranks: the mesh has {} cells along {}, the axis the ranks "
                      "split; each rank needs two at least",
                      ranks, nt, t_ == 2 ? "z" : "y"));
  require(hx >= ranks, fmt::format("demag on {} ranks: the spectrum has {} values along x to share "
                                   "out; use at most that many ranks",
                                   ranks, hx));
  mid_ = t_ == 2 ? l.p[1] : 1;
  split_.t = t_;
  split_.s = 0;
  split_.rank = me;
  split_.ranks = ranks;
  parts_ = slab_decomposition(n, pbc.axis);
  for (int r = 0; r < ranks; ++r) split_.t_start.push_back(parts_->box(r).lo[std::size_t(t_)]);
  split_.t_start.push_back(nt);
  for (int r = 0; r <= ranks; ++r)
    split_.s_start.push_back(2 * int(std::int64_t(r) * hx / ranks));  // reals: re, im
  dims_ = t_ == 2 ? std::array<int, 3>{2 * hx, mid_, nt} : std::array<int, 3>{2 * hx, nt, 1};
  kx0_ = split_.s_start[std::size_t(me)] / 2;
  hk_ = split_.s_count(me) / 2;
  const int nl = count();
  slab_size_ = std::int64_t(2) * hx * mid_ * nl;
  slab_ = Buffer<T>(d, std::size_t(3 * slab_size_));
  zero_bytes(d, slab_.data(), slab_.size() * sizeof(T));
  // Sent per apply: to the kx ranges, this slab's block of each other rank's range; back,
  // this rank's range of each other rank's slab.
  for (int q = 0; q < ranks; ++q)
    if (q != me)
      transpose_bytes_ += 3 * std::int64_t(sizeof(T)) * mid_ *
                          (std::int64_t(split_.s_count(q)) * nl +
                           std::int64_t(2) * hk_ * split_.t_count(q));
  bool fuse = false;
#if GRIDSOLVE_HAVE_CUDA
  fuse = d == Device::cuda && t_ == 1 && ranks <= ColumnPassArgs<T>::max_pieces &&
         column_pass_fits<T>(l);
#endif
  // In and out: dense rows of cells, or (fused) rows padded to 2 hx reals with zeros beyond
  // the cells, which the x transforms read and write out of place.
  const std::int64_t rows = t_ == 2 ? n[1] : nl;  // per plane of the slab
  io_row_ = fuse ? 2 * hx : n[0];
  io_size_ = io_row_ * rows * (t_ == 2 ? nl : 1);
  in_ = Buffer<T>(d, std::size_t(3 * io_size_));
  out_ = Buffer<T>(d, std::size_t(3 * io_size_));
  zero_bytes(d, in_.data(), in_.size() * sizeof(T));
  zero_bytes(d, out_.data(), out_.size() * sizeof(T));
  // x: the rows that hold cells (n[1] per plane in 3D, the slab's rows in a single layer),
  // 2 hx reals or hx complex values per row.
  x_fwd_ = make_line_fft<T>(d, {LineKind::r2c, l.p[0], rows, 1, 2 * hx, 1, hx});
  // The tensor's spectrum, in double: this rank's kx range (each rank evaluates a share).
  std::vector<int> kx_start;
  for (int r = 0; r <= ranks; ++r) kx_start.push_back(split_.s_start[std::size_t(r)] / 2);
  const std::vector<double> k = tensor_spectrum(l, cell, pbc, kx_start);
  if (fuse) {
    set_up_fused_columns(k, path);
    return;
  }
  lines_size_ = std::int64_t(2) * hk_ * mid_ * pt;  // the padded planes beyond nt included
  lines_ = Buffer<T>(d, std::size_t(3 * lines_size_));
  zero_bytes(d, lines_.data(), lines_.size() * sizeof(T));
  const std::size_t scratch =
      std::size_t(std::max(slab_size_, std::int64_t(2) * hk_ * mid_ * nt));
  send_ = Buffer<T>(d, scratch);
  receive_ = Buffer<T>(d, scratch);
  x_inv_ = make_line_fft<T>(d, {LineKind::c2r, l.p[0], rows, 1, hx, 1, 2 * hx});
  if (t_ == 2 && l.p[1] > 1) y_ = make_line_fft<T>(d, {LineKind::c2c, l.p[1], hx, hx, 1, hx, 1});
  const std::int64_t columns = std::int64_t(mid_) * hk_;
  if (pt > 1 && columns > 0)
    t_fft_ = make_line_fft<T>(d, {LineKind::c2c, pt, columns, columns, 1, columns, 1});
  const std::vector<T> mine(k.begin(), k.end());
  kernel_ = Buffer<T>(d, std::max<std::size_t>(mine.size(), 1));
  if (!mine.empty())
    copy_bytes(kernel_.data(), d, mine.data(), Device::cpu, mine.size() * sizeof(T));
}

template <class T>
DemagOnRanks<T>::~DemagOnRanks() = default;

template <class T>
void DemagOnRanks<T>::set_up_fused_columns(const std::vector<double>& k, PeerPath path) {
#if GRIDSOLVE_HAVE_CUDA
  const Layout& l = layout_;
  const int hx = l.hx, nl = count(), ny = l.n[1], py = l.p[1], hk = hk_;
  const int ranks = split_.ranks, me = split_.rank;
  auto f = std::make_unique<FusedColumns>();
  f->columns = Buffer<T>(device_, std::size_t(3) * 2 * hx * nl);
  const bool direct = path == PeerPath::automatic && peer_memory_available();
  if (direct) {
    f->peers = std::make_unique<PeerMemory>(f->columns.data());
    f->fence = std::make_unique<PeerFence>();
  } else {
    f->arrived =
        Buffer<T>(device_, std::max<std::size_t>(std::size_t(3) * 2 * hk * (ny - nl), 1));
  }
  // The tensor's xx, yy, zz, xy by column: q * kc * hk + kx * kc + ky, ky = 0 .. py / 2.
  const int kc = py / 2 + 1;
  std::vector<T> by_column(std::size_t(4) * kc * hk);
  for (int q = 0; q < 4; ++q)
    for (int kx = 0; kx < hk; ++kx)
      for (int ky = 0; ky < kc; ++ky)
        by_column[(std::size_t(q) * hk + kx) * kc + ky] = T(k[(std::size_t(q) * kc + ky) * hk + kx]);
  f->kernel = Buffer<T>(device_, by_column.size());
  copy_bytes(f->kernel.data(), device_, by_column.data(), Device::cpu,
             by_column.size() * sizeof(T));
  std::vector<T> tw(2 * std::size_t(register_fft_twiddle_count(py)));
  fill_register_fft_twiddles(py, reinterpret_cast<Cx<T>*>(tw.data()));
  f->twiddle = Buffer<T>(device_, tw.size());
  copy_bytes(f->twiddle.data(), device_, tw.data(), Device::cpu, tw.size() * sizeof(T));
  // Back to rows: kx p at columns + p nl + row (complex), a row of 2 hx reals out.
  f->x_inv = make_line_fft<T>(device_, {LineKind::c2r, l.p[0], nl, nl, 1, 1, 2 * hx});
  ColumnPassArgs<T>& a = f->pass;
  a.pieces = ranks;
  // Rank q's rows of this rank's columns: in q's own columns (this rank's, or a peer's
  // read directly), or where q's message put them.
  for (int q = 0; q < ranks; ++q) {
    const int first = split_.t_start[std::size_t(q)], rows = split_.t_count(q);
    if (q == me || direct) {
      T* at = q == me ? f->columns.data() : static_cast<T*>(f->peers->at(q));
      a.piece[q] = ColumnPiece<T>{at + std::int64_t(2) * kx0_ * rows, std::int64_t(hx) * rows,
                                  rows, first};
    } else {
      a.piece[q] = ColumnPiece<T>{f->arrived.data() + 2 * arrived_offset(q),
                                  std::int64_t(hk) * (ny - nl), rows, first};
    }
  }
  a.kernel = f->kernel.data();
  a.kernel_comp = std::int64_t(kc) * hk;
  a.twiddle = f->twiddle.data();
  a.columns = hk;
  a.ny = ny;
  a.py = py;
  columns_ = std::move(f);
#else
  (void)k, (void)path;
#endif
}

template <class T>
bool DemagOnRanks<T>::direct() const {
#if GRIDSOLVE_HAVE_CUDA
  return columns_ && columns_->peers;
#else
  return false;
#endif
}

template <class T>
std::int64_t DemagOnRanks<T>::arrived_offset(int q) const {
  // The peers' pieces one after another (this rank's own stays in the columns): hk of
  // their rows before q's.
  const int me = split_.rank;
  const int before = split_.t_start[std::size_t(q)] - (q > me ? count() : 0);
  return std::int64_t(hk_) * before;
}

template <class T>
PaddedVector<T> DemagOnRanks<T>::padded(const Buffer<T>& b) const {
  const std::array<int, 3> c = cells();
  PaddedVector<T> v;
  for (int k = 0; k < 3; ++k) v.c[k] = b.data() + k * io_size_;
  v.row = io_row_;
  v.slab = io_row_ * c[1];
  v.base = (t_ == 2 ? v.slab : v.row) * first();
  return v;
}

template <class T>
void DemagOnRanks<T>::convolve() {
  if (fused()) return apply_fused();
  const T* m[3] = {in_.data(), in_.data() + io_size_, in_.data() + 2 * io_size_};
  T* h[3] = {out_.data(), out_.data() + io_size_, out_.data() + 2 * io_size_};
  apply(m, h);
}

template <class T>
std::array<int, 3> DemagOnRanks<T>::cells() const {
  std::array<int, 3> c = layout_.n;
  c[std::size_t(t_)] = count();
  return c;
}

template <class T>
template <class Move>
void DemagOnRanks<T>::transpose(Move&& move) {
  if (!profile_) return move();
  synchronize(device_);
  const auto t0 = std::chrono::steady_clock::now();
  move();
  synchronize(device_);
  transpose_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class T>
void DemagOnRanks<T>::apply(const T* const m[3], T* const h[3]) {
  if (fused()) {
    // Into the padded rows and out of them: the cells only.
    const PaddedVector<T> in = input(), out = output();
    const std::array<int, 3> c = cells();
    const int f0 = first(), n0 = c[0], n1 = c[1];
    const Box mine{{0, 0, 0}, {c[0] - 1, c[1] - 1, c[2] - 1}};
    const T* m0 = m[0];
    const T* m1 = m[1];
    const T* m2 = m[2];
    for_each(device_, mine, [=] GRIDSOLVE_HD(int i, int j, int k) {
      const std::int64_t q = (std::int64_t(k) * n1 + j) * n0 + i, p = in.at(i, j + f0, k);
      in.c[0][p] = m0[q];
      in.c[1][p] = m1[q];
      in.c[2][p] = m2[q];
    });
    apply_fused();
    T* h0 = h[0];
    T* h1 = h[1];
    T* h2 = h[2];
    for_each(device_, mine, [=] GRIDSOLVE_HD(int i, int j, int k) {
      const std::int64_t q = (std::int64_t(k) * n1 + j) * n0 + i, p = out.at(i, j + f0, k);
      h0[q] = out.c[0][p];
      h1[q] = out.c[1][p];
      h2[q] = out.c[2][p];
    });
    return;
  }
  const Layout& l = layout_;
  const Device d = device_;
  const int n0 = l.n[0], nl = count(), mid = mid_;
  const int nyc = t_ == 2 ? l.n[1] : 1;  // rows of cells per plane of the slab
  const int row = 2 * l.hx;              // reals per row
  T* const slab = slab_.data();
  const std::int64_t ss = slab_size_;
  const T* m0 = m[0];
  const T* m1 = m[1];
  const T* m2 = m[2];
  // The cells into their rows, zeros around them (the padding along x and y).
  for_each(d, Box{{0, 0, 0}, {row - 1, mid - 1, nl - 1}},
           [=] GRIDSOLVE_HD(int i, int y, int tl) {
             const std::int64_t at = (std::int64_t(tl) * mid + y) * row + i;
             const bool cell = i < n0 && y < nyc;
             const std::int64_t q = (std::int64_t(tl) * nyc + y) * n0 + i;
             slab[at] = cell ? m0[q] : T(0);
             slab[ss + at] = cell ? m1[q] : T(0);
             slab[2 * ss + at] = cell ? m2[q] : T(0);
           });
  apply_generic();
  T* h0 = h[0];
  T* h1 = h[1];
  T* h2 = h[2];
  for_each(d, Box{{0, 0, 0}, {n0 - 1, nyc - 1, nl - 1}}, [=] GRIDSOLVE_HD(int i, int y, int tl) {
    const std::int64_t at = (std::int64_t(tl) * mid + y) * row + i;
    const std::int64_t q = (std::int64_t(tl) * nyc + y) * n0 + i;
    h0[q] = slab[at];
    h1[q] = slab[ss + at];
    h2[q] = slab[2 * ss + at];
  });
}

template <class T>
void DemagOnRanks<T>::apply_generic() {
  const Layout& l = layout_;
  const Device d = device_;
  const int hx = l.hx, nl = count(), mid = mid_, hk = hk_;
  const int nt = l.n[std::size_t(t_)], pt = l.p[std::size_t(t_)];
  const int row = 2 * hx;  // reals per row
  T* const slab = slab_.data();
  T* const lines = lines_.data();
  const std::int64_t ss = slab_size_, ls = lines_size_;
  const std::int64_t plane = std::int64_t(mid) * row;  // reals per plane of the slab
  for (int c = 0; c < 3; ++c) {
    T* s = slab + c * ss;
    T* ln = lines + c * ls;
    if (t_ == 2) {
      for (int tl = 0; tl < nl; ++tl) {
        x_fwd_->run(s + tl * plane, s + tl * plane);
        if (y_) y_->run(s + tl * plane, s + tl * plane, -1);
      }
    } else {
      x_fwd_->run(s, s);
    }
    transpose([&] {
      slabs_to_lines(d, split_, dims_, static_cast<const T*>(s), ln, send_.data(),
                     receive_.data());
    });
    if (pt > nt)  // the padded planes along the slab axis: zeros, made here, never sent
      for_each(d, Box{{0, 0, nt}, {2 * hk - 1, mid - 1, pt - 1}},
               [=] GRIDSOLVE_HD(int i, int y, int kt) {
                 ln[(std::int64_t(kt) * mid + y) * 2 * hk + i] = T(0);
               });
    if (t_fft_) t_fft_->run(ln, ln, -1);
  }
  // H(k) = K(k) M(k), K real and symmetric, stored for ky <= py/2, kz <= pz/2 (the other
  // half by each component's parity), this rank's kx only.
  const int py = l.p[1], pz = l.p[2], ry = py / 2 + 1, rz = pz / 2 + 1;
  const std::int64_t comp = std::int64_t(rz) * ry * hk;
  const bool thin = l.thin(), slab_z = t_ == 2;
  const T* K = kernel_.data();
  T* sx = lines;
  T* sy = lines + ls;
  T* sz = lines + 2 * ls;
  if (hk > 0)
    for_each(d, Box{{0, 0, 0}, {hk - 1, mid - 1, pt - 1}}, [=] GRIDSOLVE_HD(int kx, int y, int kt) {
      const int ky = slab_z ? y : kt, kz = slab_z ? kt : 0;
      const bool fy = 2 * ky > py, fz = 2 * kz > pz;
      const int qy = fy ? py - ky : ky, qz = fz ? pz - kz : kz;
      const std::int64_t r = (std::int64_t(qz) * ry + qy) * hk + kx;
      const std::int64_t s = 2 * ((std::int64_t(kt) * mid + y) * hk + kx);
      multiply_by_tensor(K, comp, r, fy, fz, thin, sx, sy, sz, s);
    });
  for (int c = 0; c < 3; ++c) {
    T* s = slab + c * ss;
    T* ln = lines + c * ls;
    if (t_fft_) t_fft_->run(ln, ln, +1);
    transpose([&] {
      lines_to_slabs(d, split_, dims_, static_cast<const T*>(ln), s, send_.data(),
                     receive_.data());
    });
    if (t_ == 2) {
      for (int tl = 0; tl < nl; ++tl) {
        if (y_) y_->run(s + tl * plane, s + tl * plane, +1);
        x_inv_->run(s + tl * plane, s + tl * plane);
      }
    } else {
      x_inv_->run(s, s);
    }
  }
}

template <class T>
void DemagOnRanks<T>::apply_fused() {
#if GRIDSOLVE_HAVE_CUDA
  FusedColumns& f = *columns_;
  const int hx = layout_.hx, nl = count(), ny = layout_.n[1], hk = hk_;
  const int ranks = split_.ranks, me = split_.rank;
  const std::int64_t ss = slab_size_;
  using V = Cx<T>;
  auto columns_of = [&](int c) { return f.columns.data() + std::int64_t(2) * c * hx * nl; };
  auto to_columns = [&](int c) {
    T* s = slab_.data() + c * ss;
    x_fwd_->run(in_.data() + c * io_size_, s);
    demag::transpose<V>(reinterpret_cast<const V*>(s), hx, std::int64_t(hx) * nl,
                        reinterpret_cast<V*>(columns_of(c)), nl, std::int64_t(hx) * nl, nl, hx,
                        1);
  };
  auto to_rows = [&](int c) { f.x_inv->run(columns_of(c), out_.data() + c * io_size_); };
  if (ranks == 1 || f.peers) {
    // Direct (or alone): the column pass reads every rank's pieces where they were made
    // and writes them back there; a fence on each side of it.
    for (int c = 0; c < 3; ++c) to_columns(c);
    // Timed as the transposes when profiling: the pass is what moves the data.
    if (ranks > 1) f.fence->fence();
    transpose([&] { run_column_pass(f.pass); });
    if (ranks > 1) f.fence->fence();
    for (int c = 0; c < 3; ++c) to_rows(c);
    return;
  }
  auto arrived_of = [&](int c, int q) {
    return f.arrived.data() +
           std::int64_t(2) * (std::int64_t(c) * hk * (ny - nl) + arrived_offset(q));
  };
  auto bytes = [](T* at, std::int64_t complex_values) {
    return std::as_writable_bytes(std::span<T>(at, std::size_t(2 * complex_values)));
  };
  // Component c's columns: out, to each peer its kx range of them (a run of columns), from
  // each peer its rows of this rank's range; back, the reverse.
  auto move_component = [&](int c, bool out) {
    constexpr int tag = 7;
    std::vector<Message> to, from;
    for (int q = 0; q < ranks; ++q) {
      if (q == me) continue;
      const int kq = split_.s_start[std::size_t(q)] / 2, hq = split_.s_count(q) / 2;
      const Message mine{q, tag, bytes(columns_of(c) + std::int64_t(2) * kq * nl,
                                       std::int64_t(hq) * nl)};
      const Message theirs{q, tag, bytes(arrived_of(c, q), std::int64_t(hk) * split_.t_count(q))};
      to.push_back(out ? mine : theirs);
      from.push_back(out ? theirs : mine);
    }
    const cuda::ExecStreamScope on_link(f.link);
    exchange_over_ranks(device_, to, from);
  };
  auto record = [](cudaEvent_t e, cudaStream_t s) {
    cuda::check(cudaEventRecord(e, s), "link event");
  };
  auto wait = [](cudaStream_t s, cudaEvent_t e) {
    cuda::check(cudaStreamWaitEvent(s, e, 0), "link wait");
  };
  // Each component's messages on the link's stream while the next one is transformed.
  for (int c = 0; c < 3; ++c) {
    to_columns(c);
    if (profile_) {
      transpose([&] { move_component(c, true); });
      continue;
    }
    record(f.ready[c], cudaStreamLegacy);
    wait(f.link, f.ready[c]);
    move_component(c, true);
  }
  if (!profile_) {
    record(f.sent, f.link);
    wait(cudaStreamLegacy, f.sent);
  }
  run_column_pass(f.pass);
  if (!profile_) {
    record(f.done, cudaStreamLegacy);
    wait(f.link, f.done);
    for (int c = 0; c < 3; ++c) {
      move_component(c, false);
      record(f.back[c], f.link);
    }
  }
  for (int c = 0; c < 3; ++c) {
    if (profile_)
      transpose([&] { move_component(c, false); });
    else
      wait(cudaStreamLegacy, f.back[c]);
    to_rows(c);
  }
#endif
}

template <class T>
double DemagOnRanks<T>::check_against_direct_sum(Device d, std::array<int, 3> n,
                                                 std::array<double, 3> cell, Periodicity pbc) {
  const DirectSumCheck ref = direct_sum_check(n, cell, pbc);
  DemagOnRanks<T> conv(d, n, cell, pbc);
  const int t = conv.axis(), first = conv.first();
  const std::array<int, 3> mine = conv.cells();
  const std::int64_t count = std::int64_t(mine[0]) * mine[1] * mine[2];
  // This rank's cells, x fastest: a run of whole rows or planes from `first` on.
  const std::int64_t offset = std::int64_t(first) * n[0] * (t == 2 ? n[1] : 1);
  Buffer<T> mb[3], hb[3];
  const T* mp[3];
  T* hp[3];
  for (int c = 0; c < 3; ++c) {
    const std::vector<T> part(ref.m[c].begin() + offset, ref.m[c].begin() + offset + count);
    mb[c] = Buffer<T>(d, std::size_t(count));
    hb[c] = Buffer<T>(d, std::size_t(count));
    copy_bytes(mb[c].data(), d, part.data(), Device::cpu, part.size() * sizeof(T));
    mp[c] = mb[c].data();
    hp[c] = hb[c].data();
  }
  conv.apply(mp, hp);
  double worst = 0, largest = 0;
  for (int c = 0; c < 3; ++c) {
    std::vector<T> h(static_cast<std::size_t>(count));
    copy_bytes(h.data(), Device::cpu, hp[c], d, h.size() * sizeof(T));
    for (std::int64_t q = 0; q < count; ++q) {
      const double want = ref.h[c][std::size_t(offset + q)];
      worst = std::max(worst, std::abs(double(h[std::size_t(q)]) - want));
      largest = std::max(largest, std::abs(want));
    }
  }
  const Communicator& comm = Communicator::world();
  return comm.max(worst) / comm.max(largest);
}

template class DemagOnRanks<float>;
template class DemagOnRanks<double>;

}  // namespace gridsolve::demag
