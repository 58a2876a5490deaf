// DemagOnRanks: the demagnetizing convolution with the magnetization split over the ranks of
// the run in slabs (along z, or along y for a single layer), as DemagConvolution computes
// it on one process: each rank transforms its slab along x (real to complex, only the rows
// that hold cells) and y, one all-to-all per component hands every rank a range of kx with
// all of the slab axis (the padded planes are never sent), the transform along the slab
// axis, the product with the tensor's spectrum (each rank keeps its kx range of it), and
// back the same way. Every rank of the run constructs it and calls apply together.
//
// On GPUs, a single layer whose columns fit the fused column pass (demag_column_pass.hpp)
// goes the way one GPU's fused convolution goes, split: the x transforms of the slab's rows,
// a transpose into columns, each rank's range of columns sent whole to the rank that owns
// it, and back. Where the ranks' GPUs reach each other directly (one host, peer access:
// PeerMemory), no message is sent: the column pass reads every rank's rows of its columns
// where that rank made them and writes the results back there, the link's traffic inside
// the pass, beside its arithmetic. Elsewhere the runs of columns go by the device link
// (straight from and into the buffers the transforms and the column pass read: no
// packing), each component's messages on a stream of their own beside the next
// component's transforms.
#pragma once
#include <array>
#include <memory>
#include <vector>

#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/transform/demag_layout.hpp"
#include "gridsolve/transform/line_fft.hpp"
#include "gridsolve/transform/slab_transpose.hpp"

namespace gridsolve::demag {

// The cells of an n mesh split over the run's ranks in slabs along z (along y for a single
// layer), as DemagOnRanks transforms them: a decomposition of the cell box (2D for a single
// layer), periodic where the mesh is (along axes of more than one cell).
std::shared_ptr<const Decomposition> slab_decomposition(std::array<int, 3> n,
                                                        std::array<bool, 3> periodic = {});

// Whether the fused path may read the peers' memory directly (automatic: where
// peer_memory_available()) or always sends messages.
enum class PeerPath { automatic, messages };

template <class T>
class DemagOnRanks {
 public:
  DemagOnRanks(Device d, std::array<int, 3> n, std::array<double, 3> cell, Periodicity pbc = {},
               PeerPath path = PeerPath::automatic);
  ~DemagOnRanks();
  DemagOnRanks(const DemagOnRanks&) = delete;
  DemagOnRanks& operator=(const DemagOnRanks&) = delete;

  // The decomposition its slabs follow (slab_decomposition of the mesh).
  const std::shared_ptr<const Decomposition>& decomposition() const { return parts_; }
  // Buffers of this rank's cells it owns, for convolve(): write M of the slab's cells into
  // input() (indexed by the cells' indices in the whole mesh), read H from output() after.
  PaddedVector<T> input() const { return padded(in_); }
  PaddedVector<T> output() const { return padded(out_); }
  void convolve();

  // The slab axis (2, or 1 for a single layer) and this rank's cells along it.
  int axis() const { return t_; }
  int first() const { return split_.t_start[std::size_t(split_.rank)]; }
  int count() const { return split_.t_count(split_.rank); }
  // This rank's cells: n with the slab axis cut to count().
  std::array<int, 3> cells() const;

  // m and h: this rank's cells, dense per component (x fastest over cells()), on the device.
  // H = -N * M over the whole box, each rank its slab.
  void apply(const T* const m[3], T* const h[3]);

  const Layout& layout() const { return layout_; }
  // Whether the fused column pass runs (see above).
  bool fused() const { return columns_ != nullptr; }
  // Whether it reads the peers' memory directly (see above).
  bool direct() const;

  // The one-process check of the same name, split over the run's ranks (every rank calls
  // it): the direct sum's magnetization on an n box, each rank's slab convolved on the
  // ranks, against the direct sum's field; the largest difference over every rank
  // relative to the largest field.
  static double check_against_direct_sum(Device d, std::array<int, 3> n,
                                         std::array<double, 3> cell, Periodicity pbc = {});

  // The bytes this rank sends in the transposes of one apply (both ways, three components).
  std::int64_t transpose_bytes() const { return transpose_bytes_; }
  // With profiling on, each transpose waits for the device before and after, and its time
  // adds to transpose_seconds (for benchmarks: the waits cost overlap). Read directly, the
  // column pass is what moves the data, and is timed instead.
  void profile(bool on) {
    profile_ = on;
    transpose_seconds_ = 0;
  }
  double transpose_seconds() const { return transpose_seconds_; }

  // The two ways a convolution goes: over slab_'s rows of 2 hx reals (this rank's rows of
  // M in, of H out), or (fused) from in_'s padded rows to out_'s. (Public only because
  // CUDA's device lambdas may not live in private member functions.)
  void apply_generic();
  void apply_fused();

 private:
  PaddedVector<T> padded(const Buffer<T>& b) const;
  // A transpose: alone and timed when profiling.
  template <class Move>
  void transpose(Move&& move);
  void set_up_fused_columns(const std::vector<double>& tensor_spectrum, PeerPath path);
  // Where peer q's rows of this rank's columns arrive (complex values into one component).
  std::int64_t arrived_offset(int q) const;
  struct FusedColumns;  // the fused path's buffers, plans and streams (GPU only)

  Device device_;
  Layout layout_;
  std::shared_ptr<const Decomposition> parts_;
  // This rank's cells per component, rows of io_row_ (dense, or padded on the fused path).
  Buffer<T> in_, out_;
  std::int64_t io_row_ = 0, io_size_ = 0;  // reals per row and per component
  int t_ = 2, mid_ = 1;  // slab axis; points along the axis between x and t (p[1] in 3D)
  SlabSplit split_;      // t: the slab axis of the transposed arrays; s: kx (in reals)
  std::array<int, 3> dims_{};  // the transposed arrays in reals: 2 hx, mid or n[1], ...
  int kx0_ = 0, hk_ = 0;       // this rank's first kx and its count
  Buffer<T> slab_, lines_, send_, receive_, kernel_;
  std::int64_t slab_size_ = 0, lines_size_ = 0;  // reals per component
  std::unique_ptr<LineFft<T>> x_fwd_, x_inv_, y_, t_fft_;
  std::unique_ptr<FusedColumns> columns_;
  std::int64_t transpose_bytes_ = 0;
  bool profile_ = false;
  double transpose_seconds_ = 0;
};

}  // namespace gridsolve::demag
