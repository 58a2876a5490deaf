// Hand-tuned CUDA kernels for the assembled operator, beside the generic loop bodies;
// tests compare the two. Declared for CUDA builds only.
#pragma once
#if GRIDSOLVE_HAVE_CUDA
#include <memory>

#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/stencil_operator.hpp"

namespace gridsolve::tuned {

// Jacobi sweep out = (1-w) in + w (b + sum a_nb in_nb) / a_P on free nodes, fixed nodes
// copied, nodes outside op.active left alone. Applies to uniform operators on the device
// (2D and 3D; mask and right-hand-side field optional). Each thread keeps a strip of
// rows in registers, so u crosses DRAM once each way: 2 words per node.
template <class T>
bool jacobi_applies(const StencilOperator<T>& op);
// Whether u's layout (and the operator's fields') lets the sweep's packed loads start at
// x = 0: always for a whole field; for a rank's part when its x range starts at a multiple
// of the pack width (a split in y or z only, or an even cut). Otherwise the generic sweep.
template <class T>
bool jacobi_layout_fits(const StencilOperator<T>& op, const Field<T>& u);
// in and out are distinct fields laid out by Layout. When max_update (device pointer) is
// given, it is reset (unless reset_max is false: sweeps of parts of the box accumulate)
// and then receives max |out - in| over the updated nodes. region (null: op.active) limits
// the sweep to a box inside op.active. Asynchronous, on the legacy default stream.
template <class T>
void jacobi_sweep(const StencilOperator<T>& op, const Field<T>& in, Field<T>& out, T weight,
                  double* max_update, const Box* region = nullptr, bool reset_max = true);

// Red-black SOR with each colour in its own array, so that every neighbour read is
// unit stride. Load once, iterate many times, store back. Applies to 2D and 3D operators
// on the device, uniform or not; the right-hand side and mask are split by colour too.
// Uniform operators: minimal traffic of one iteration is each colour array read twice and
// written once (3 words per node). General operators keep each node's row divided by its
// diagonal (a_nb / a_P and b_P / a_P) and fold the mask into it (a node that is not
// updated has zero coefficients and b_P / a_P = u_P): 3 + 5 words per node in 2D,
// 3 + 7 in 3D. Results agree with the generic red-black iteration to rounding.
template <class T>
bool coloured_sor_applies(const StencilOperator<T>& op);

template <class T>
class ColouredSor {
 public:
  ColouredSor(const StencilOperator<T>& op, const Field<T>& u);
  ~ColouredSor();
  ColouredSor(const ColouredSor&) = delete;
  ColouredSor& operator=(const ColouredSor&) = delete;
  // `count` full iterations (red half-sweep, then black).
  void iterate(T omega, int count);
  // One iteration that also returns max |update|.
  double iterate_measuring_update(T omega);
  // ||b - A u||_2 over the free nodes.
  double residual_norm() const;
  // Writes the colours back into the natural layout.
  void store(Field<T>& u) const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// Red-black SOR with up to three iterations in one pass over memory (out of place, tiles
// with a halo in shared memory), for 2D operators whose rows mostly repeat along y
// (uniform ones, axisymmetric ones): each column's row is kept once, and only nodes that
// differ from it (coverage() tells how many match) read a stored row. The same iterates
// as the other red-black kernels, to rounding, at under a word per node and iteration.
template <class T>
bool fused_sor_applies(const StencilOperator<T>& op);

template <class T>
class FusedSor {
 public:
  FusedSor(const StencilOperator<T>& op, const Field<T>& u);
  ~FusedSor();
  FusedSor(const FusedSor&) = delete;
  FusedSor& operator=(const FusedSor&) = delete;
  // Share of the free nodes whose row is their column's.
  double coverage() const;
  // `count` full iterations (red, then black).
  void iterate(T omega, int count);
  // ||b - A u||_2 over the free nodes.
  double residual_norm() const;
  void store(Field<T>& u) const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace gridsolve::tuned
#endif
