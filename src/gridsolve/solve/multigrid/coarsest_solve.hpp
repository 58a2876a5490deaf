// The coarsest level of a multigrid hierarchy, solved exactly: its unknowns gathered into a
// vector, multiplied by the level's dense inverse and scattered back. A solve is then three
// small loops instead of dozens of sweeps, which on a GPU would be dozens of launches. A
// singular level (all-Neumann) is inverted with the constants' projector added, which
// yields the zero-mean solution for the compatible right-hand sides multigrid hands it.
#pragma once
#include <cstdint>
#include <vector>

#include "gridsolve/exec/memory.hpp"
#include "gridsolve/problem/stencil_operator.hpp"
#include "gridsolve/solve/multigrid/block_cycle.hpp"

namespace gridsolve::multigrid {

// A level of at most this many active nodes has its inverse made where it lives, on the
// GPU in one block: a refresh of the coefficients (every few steps of a flow) then copies
// nothing to the host and waits for nothing. A larger one is inverted on the host from a
// copy (its n^3 operations would keep one block busy for long).
constexpr std::int64_t k_inverse_in_place_nodes = 256;

template <class T>
class CoarsestSolve {
 public:
  // The inverse of op's rows at its unknowns (the free nodes of its active box). singular:
  // the fine operator is (its constants are its null space), so this level is too,
  // whatever round-off the coarsening left on its diagonal. Throws Error where a pivot
  // vanishes.
  CoarsestSolve(const StencilOperator<T>& op, bool singular);
  ~CoarsestSolve();
  CoarsestSolve(CoarsestSolve&&) noexcept;
  CoarsestSolve& operator=(CoarsestSolve&&) noexcept;

  // Whether the inverse is made where the level lives (a GPU level of at most
  // k_inverse_in_place_nodes active nodes): then refresh can remake it without waiting.
  bool in_place() const { return in_place_; }
  // New coefficients of the same level (which nodes are unknowns may differ too; singular
  // as above), for an inverse made in place: remade into the same storage. status[0] gets
  // the count of unknowns and status[1] 1 where a pivot vanished (0 else), in memory of
  // op's device, without waiting: the caller reads them back together with its own
  // results and hands them to take_status before the next solve. (An inverse made on the
  // host is made anew by the constructor.)
  void refresh(const StencilOperator<T>& op, bool singular, std::int64_t* status);
  // The status refresh left, read back: the count of unknowns taken; Error where a pivot
  // vanished.
  void take_status(const std::int64_t* status);

  // u at the level's unknowns = A^-1 (its rows' right-hand side, known neighbours moved
  // over), for the level's view v.
  void solve(const StencilView<T>& v, Field<T>& u) const;
  // The same storage as the block cycle reads it.
  BlockCoarsest<T> block_view() const;
  int unknowns() const { return n_; }
  // Where the storage lies and the count: what a recorded cycle holds of this solve (a
  // change records it again).
  std::vector<std::uintptr_t> recorded_arguments() const;

 private:
  // Numbers op's unknowns, assembles and inverts, on the host; uploads what the solves read.
  void make_on_host(const StencilOperator<T>& op);
  Device device_ = Device::cpu;
  bool singular_ = false;
  bool in_place_ = false;  // made where it lives (the GPU path above)
  int n_ = 0;
  Buffer<T> inverse_;  // n x n, row-major
  Buffer<int> nodes_;  // (i, j, k) of each unknown
  Buffer<T> rhs_;      // the gathered right-hand side
  Buffer<T> x_;        // its solution, before the scatter
  // Work of an inverse made in place: each grid node's unknown number, the matrix and the
  // inverse in double (in shared memory, of shared_bytes_, where they fit), each row's
  // leftover diagonal, the pivot row, the status slots.
  Buffer<int> number_;
  int capacity_ = 0;  // the level's active nodes: the most unknowns it can have
  std::size_t shared_bytes_ = 0;
  Buffer<double> matrix_, inverse_work_, leftover_;
  Buffer<int> pivot_;
  Buffer<std::int64_t> status_;
};

}  // namespace gridsolve::multigrid
