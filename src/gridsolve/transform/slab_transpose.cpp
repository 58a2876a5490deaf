// Slab transposes: blocks copied between dense layouts by loops on the data's device, all
// blocks of one transpose in one exchange (the device link on the GPU, MPI on the host).
#include "gridsolve/transform/slab_transpose.hpp"

#include <cstdint>
#include <span>

#include "gridsolve/core/box.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device_link.hpp"
#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve {

std::array<int, 3> SlabSplit::slab_extent(const std::array<int, 3>& n, int r) const {
  std::array<int, 3> m = n;
  m[std::size_t(t)] = t_count(r);
  return m;
}

std::array<int, 3> SlabSplit::lines_extent(const std::array<int, 3>& n, int r) const {
  std::array<int, 3> m = n;
  m[std::size_t(s)] = s_count(r);
  return m;
}

namespace {

// A dense x-fastest array holding the unknowns from `first` (global indices), `m` per axis.
struct Dense {
  int m[3];
  int first[3];
  GRIDSOLVE_HD std::int64_t at(int i, int j, int k) const {
    return (i - first[0]) +
           std::int64_t(m[0]) * ((j - first[1]) + std::int64_t(m[1]) * (k - first[2]));
  }
};

Dense dense(const std::array<int, 3>& m, const std::array<int, 3>& first) {
  return Dense{{m[0], m[1], m[2]}, {first[0], first[1], first[2]}};
}

// The block of unknowns with t in rank tr's slab and s in rank sr's lines.
Box block(const SlabSplit& sp, const std::array<int, 3>& n, int tr, int sr) {
  Box b{{0, 0, 0}, {n[0] - 1, n[1] - 1, n[2] - 1}};
  b.lo[sp.t] = sp.t_start[std::size_t(tr)], b.hi[sp.t] = sp.t_start[std::size_t(tr) + 1] - 1;
  b.lo[sp.s] = sp.s_start[std::size_t(sr)], b.hi[sp.s] = sp.s_start[std::size_t(sr) + 1] - 1;
  return b;
}

template <class T>
void copy_block(Device d, const Box& b, const T* from, const Dense& f, T* to, const Dense& t) {
  if (b.empty()) return;
  for_each(d, b,
           [=] GRIDSOLVE_HD(int i, int j, int k) { to[t.at(i, j, k)] = from[f.at(i, j, k)]; });
}

// One transpose: from this rank's layout `from` (slabs when to_lines) into its other one.
template <class T>
void transpose(Device d, const SlabSplit& sp, const std::array<int, 3>& n, const T* src, T* dst,
               T* send, T* receive, bool to_lines) {
  const int me = sp.rank;
  std::array<int, 3> zero{0, 0, 0};
  std::array<int, 3> slab_first = zero, lines_first = zero;
  slab_first[std::size_t(sp.t)] = sp.t_start[std::size_t(me)];
  lines_first[std::size_t(sp.s)] = sp.s_start[std::size_t(me)];
  const Dense slab = dense(sp.slab_extent(n, me), slab_first);
  const Dense lines = dense(sp.lines_extent(n, me), lines_first);
  const Dense& from = to_lines ? slab : lines;
  const Dense& to = to_lines ? lines : slab;
  // The block this rank keeps, and the ones it sends (to_lines: its t, their s) and
  // receives (their t, its s); the reverse transpose swaps the roles.
  auto outgoing_block = [&](int q) { return to_lines ? block(sp, n, me, q) : block(sp, n, q, me); };
  auto incoming_block = [&](int p) { return to_lines ? block(sp, n, p, me) : block(sp, n, me, p); };
  copy_block(d, outgoing_block(me), src, from, dst, to);
  std::vector<Message> out, in;
  std::vector<Box> in_boxes;
  std::vector<T*> in_at;
  constexpr int tag = 7;  // beside the ghost messages' tags
  std::int64_t sent = 0, received = 0;
  for (int q = 0; q < sp.ranks; ++q) {
    if (q == me) continue;
    const Box ob = outgoing_block(q), ib = incoming_block(q);
    if (!ob.empty()) {
      const std::array<int, 3> e{ob.extent(0), ob.extent(1), ob.extent(2)};
      copy_block(d, ob, src, from, send + sent, dense(e, {ob.lo[0], ob.lo[1], ob.lo[2]}));
      out.push_back(Message{
          q, tag, std::as_writable_bytes(std::span<T>(send + sent, std::size_t(ob.cells())))});
      sent += ob.cells();
    }
    if (!ib.empty()) {
      in.push_back(Message{
          q, tag,
          std::as_writable_bytes(std::span<T>(receive + received, std::size_t(ib.cells())))});
      in_boxes.push_back(ib);
      in_at.push_back(receive + received);
      received += ib.cells();
    }
  }
  exchange_over_ranks(d, out, in);
  for (std::size_t m = 0; m < in_boxes.size(); ++m) {
    const Box& ib = in_boxes[m];
    const std::array<int, 3> e{ib.extent(0), ib.extent(1), ib.extent(2)};
    copy_block(d, ib, static_cast<const T*>(in_at[m]), dense(e, {ib.lo[0], ib.lo[1], ib.lo[2]}),
               dst, to);
  }
}

}  // namespace

template <class T>
void slabs_to_lines(Device d, const SlabSplit& sp, const std::array<int, 3>& n, const T* slabs,
                    T* lines, T* send, T* receive) {
  transpose(d, sp, n, slabs, lines, send, receive, true);
}

template <class T>
void lines_to_slabs(Device d, const SlabSplit& sp, const std::array<int, 3>& n, const T* lines,
                    T* slabs, T* send, T* receive) {
  transpose(d, sp, n, lines, slabs, send, receive, false);
}

#define GRIDSOLVE_INSTANTIATE(T)                                                                 \
  template void slabs_to_lines<T>(Device, const SlabSplit&, const std::array<int, 3>&, const T*, \
                                  T*, T*, T*);                                                   \
  template void lines_to_slabs<T>(Device, const SlabSplit&, const std::array<int, 3>&, const T*, \
                                  T*, T*, T*);
GRIDSOLVE_INSTANTIATE(float)
GRIDSOLVE_INSTANTIATE(double)

}  // namespace gridsolve
