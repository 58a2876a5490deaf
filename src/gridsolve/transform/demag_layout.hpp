// The padded sizes and buffer layout of the demag convolution, shared by its FFT back ends.
#pragma once
#include <array>
#include <cstdint>

#include "gridsolve/core/hd.hpp"

namespace gridsolve::demag {

// How the zero-padded transforms run.
//  skip_zeros: one axis at a time, never transforming the padded zeros: the forward x
//    pass only on the rows that hold cells, the y pass only on the slabs that hold cells,
//    and the inverse passes only where the result is kept.
//  plain: whole padded 2D / 3D real-to-complex transforms (the reference for timing).
//  fused: as skip_zeros, and on the GPU for single layers whose padded y length is a power
//    of two (16 .. 8192, fitting in shared memory) the y transform, the product with the
//    tensor and the inverse y transform are one kernel per column, in registers
//    (demag_column_pass.hpp); elsewhere the same as skip_zeros.
enum class FftMode { skip_zeros, plain, fused };

// Periodic boundaries: along a periodic axis the box repeats without padding (the
// transform length is the cell count, the convolution circular), and the tensor is summed
// over `images` copies of the box on each side (2 images + 1 boxes in all), as mumax3's
// PBC does.
struct Periodicity {
  std::array<bool, 3> axis{false, false, false};
  int images = 0;
  bool any() const { return axis[0] || axis[1] || axis[2]; }
};

struct Layout {
  std::array<int, 3> n{1, 1, 1};  // cells
  std::array<int, 3> p{1, 1, 1};  // padded transform lengths (1 where n == 1; n if periodic)
  std::array<bool, 3> periodic{false, false, false};
  int hx = 1;  // complex values kept along x: p[0] / 2 + 1
  // Row pitches: real rows hold an even number of values (cuFFT wants every row aligned
  // to a complex value); zero-skipping spectrum rows are padded to 32 complex values so
  // that the strided column transforms read whole memory sectors.
  int rx = 2;
  int sx = 1;
  FftMode mode = FftMode::skip_zeros;

  // Real buffers (input and output): rows of rx values (p[0] used), n[1] (skip) or p[1]
  // (plain) rows per slab, n[2] or p[2] slabs.
  std::int64_t real_row() const { return rx; }
  std::int64_t real_slab() const { return std::int64_t(rx) * (pruned() ? n[1] : p[1]); }
  std::int64_t real_size() const { return real_slab() * (pruned() ? n[2] : p[2]); }
  // The spectrum: p[2] slabs of p[1] rows of sx complex values (hx used).
  std::int64_t spectrum_size() const { return std::int64_t(sx) * p[1] * p[2]; }
  bool thin() const { return n[2] == 1; }
  // Whether the transforms skip the padded zeros (every mode but plain).
  bool pruned() const { return mode != FftMode::plain; }

  // The smallest even length >= 2 n - 1 with no prime factor above 5 (1 when n == 1).
  static int padded_length(int n);
  static Layout make(std::array<int, 3> n, FftMode mode,
                     std::array<bool, 3> periodic = {false, false, false});
};

// Where cell (i, j, k) of one component lives in a padded real buffer.
template <class T>
// (A rank's slab: `base` is the offset of cell (0, 0, 0), which lies on another rank, so
// that cells keep their indices in the whole mesh.)
struct PaddedVector {
  T* c[3] = {nullptr, nullptr, nullptr};
  std::int64_t row = 0, slab = 0, base = 0;
  GRIDSOLVE_HD std::int64_t at(int i, int j, int k) const { return k * slab + j * row + i - base; }
};

}  // namespace gridsolve::demag
