// The fused column pass of the GPU demag convolution of a single layer: for every x
// frequency, the y transform of the rows that hold cells, the product with the tensor and
// the inverse y transform of the rows that are kept, in one kernel, in registers and shared
// memory; and the transposes that give it whole columns to read.
#pragma once
#include <cstdint>

#include "gridsolve/transform/demag_layout.hpp"

namespace gridsolve::demag {

// A run of rows of every column: rows first .. (the next piece's first) - 1 of column kx of
// component c at at + c * comp_pitch + kx * col_pitch + (y - first), in complex values.
template <class T>
struct ColumnPiece {
  T* at = nullptr;
  std::int64_t comp_pitch = 0, col_pitch = 0;
  int first = 0;
};

// What the pass reads and writes: three spectra stored by column, the first ny entries of
// each column the rows that hold cells (transformed along x), in `pieces` runs of rows (one
// on one GPU; on ranks, one per rank's slab of rows, as they arrive, so that nothing is
// copied into whole columns); the pass writes the result over them. `kernel` is the
// tensor's reduced spectrum stored by column too (component q's column kx at kernel +
// q * kernel_comp + kx * (py/2 + 1); q = xx, yy, zz, xy), `twiddle` the table of
// fill_register_fft_twiddles(py) (stockham_fft.hpp) as interleaved complex values.
template <class T>
struct ColumnPassArgs {
  static constexpr int max_pieces = 16;
  ColumnPiece<T> piece[max_pieces];
  int pieces = 0;
  const T* kernel = nullptr;
  std::int64_t kernel_comp = 0;
  const T* twiddle = nullptr;
  int columns = 0, ny = 0, py = 0;
};

// Whether the pass runs for this layout on the current GPU: a single layer, p[1] a power of
// two from 16 up, and its buffers fitting in one multiprocessor's shared memory.
template <class T>
bool column_pass_fits(const Layout& l);

template <class T>
void run_column_pass(const ColumnPassArgs<T>& a);

// dst[b][c * dst_pitch + r] = src[b][r * src_pitch + c] for r < rows, c < cols, b < batch
// (batch b at src + b * src_batch, dst + b * dst_batch): E is T (the tensor) or a complex
// value (the spectra).
template <class E>
void transpose(const E* src, std::int64_t src_pitch, std::int64_t src_batch, E* dst,
               std::int64_t dst_pitch, std::int64_t dst_batch, int rows, int cols, int batch);

}  // namespace gridsolve::demag
