// The coarse end of a V-cycle in one thread block on the GPU.
//
// Why: below a few thousand nodes a level's launches do almost no work each, and each
// still costs a launch's latency. A V-cycle of a small grid's pressure (DFG 2D-2: 704 x 262
// cells, 8 levels) ran some 45 such launches a cycle on its 4 levels of at most 1024 nodes.
// Here those levels' smoothing, residual, restriction, exact coarsest solve, interpolation
// and smoothing again run in one launch of one block, its stages separated by barriers; the
// values are those of the launched cycle to the bit (the same loop bodies,
// level_bodies.hpp and transfer_bodies.hpp, in the same order). One block is one SM of
// the GPU: a stage costs about what a small launch does (block_cycle.cpp says why), so
// what is saved is the launches' gaps and the host's share of them, a few percent of a
// small grid's flow step; past some thousand nodes a level is cheaper launched
// (block_level_nodes).
#pragma once
#include <array>
#include <cstdint>

#include "gridsolve/core/field_view.hpp"
#include "gridsolve/problem/stencil_view.hpp"
#include "gridsolve/solve/multigrid/transfer_bodies.hpp"

namespace gridsolve::multigrid {

// A level as the block reads it.
template <class T>
struct BlockLevel {
  StencilView<T> a;         // its operator with its right-hand side
  FieldView<T> rhs;         // that right-hand side, written by the restriction from above
  FieldView<T> u;           // its correction
  T* u_storage = nullptr;   // u's whole allocation, zeroed before the level's cycle
  std::int64_t u_size = 0;  // (as Field::set_zero does)
  FieldView<T> r;           // its residual
  // Toward the next coarser level (not on the coarsest): the transfer weights, whether
  // they all come from node positions, and this level's node counts.
  Transfer<T> to_coarse;
  bool positional = true;
  std::array<int, 3> nodes{1, 1, 1};
};

// The coarsest level's exact solve (the hierarchy's dense inverse).
template <class T>
struct BlockCoarsest {
  int n = 0;
  const T* inverse = nullptr;  // n x n, row-major
  const int* nodes = nullptr;  // (i, j, k) of each unknown
  T* rhs = nullptr;
  T* x = nullptr;
};

// At most this many levels in the block (a level of a few thousand nodes has fewer below
// it in 2D and 3D; a long thin grid may have more, and is cycled by launches).
constexpr int k_block_cycle_levels = 12;

template <class T>
struct BlockCycle {
  int dims = 2;
  int count = 0;  // levels held; the last is the coarsest
  int pre_smooth = 2, post_smooth = 2;
  BlockLevel<T> level[k_block_cycle_levels];
  BlockCoarsest<T> coarsest;
};

// A V-cycle from level `start` of c down to the coarsest and back, improving that level's
// u for its right-hand side (u as the caller left it: zero, or a first guess). Red-black
// Gauss-Seidel, each sweep colour 0 then 1; reverse_post: the post-smoothing sweeps colour
// 1 then 0 (the symmetric cycle a preconditioner needs). In one block on the exec stream;
// a CUDA build's GPU only.
template <class T>
void run_block_cycle(const BlockCycle<T>& c, int start, bool reverse_post);

}  // namespace gridsolve::multigrid
