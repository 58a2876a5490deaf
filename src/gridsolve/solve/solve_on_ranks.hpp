// solve_on_ranks: a whole problem in host memory solved by every rank of the run on its
// part (its own GPU, or the CPU), the solution gathered back: the one path the commands
// and applications take under mpirun.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/stencil_operator.hpp"
#include "gridsolve/solve/solve_settings.hpp"

namespace gridsolve {

// Where a solve ran, for reports and summary.json.
struct RanksUsed {
  int ranks = 1;
  std::string grid = "1x1";  // the process grid, "2x1" (one rank: "1x1" or "1x1x1")
  // Rank after rank: "cpu", or "cuda:<GPU number on its machine>".
  std::vector<std::string> devices;
  std::string device_link;                      // how device buffers travelled (empty: none)
  std::vector<std::int64_t> unknowns_per_rank;  // rank after rank
};

// "2 (process grid 1x2) on cuda:0, cuda:1; device buffers by NCCL 2.28.3".
std::string describe(const RanksUsed& used);

// The process grid to ask for when the user named none: a solver on slabs (fft) gets every
// rank on its slab axis; any other {0, 0, 0}, which lets the decomposition choose.
template <class T>
std::array<int, 3> default_process_grid(const SolverInfo& solver, const StencilOperator<T>& whole,
                                        int ranks);

// Who holds the whole solution afterwards: rank 0, every rank, or nobody (each rank keeps
// its part, for output every rank writes together).
enum class SolutionOn { root, every_rank, parts };

// One rank's part of a whole operator and of its initial u, on the device that solves.
template <class T>
struct RankShare {
  StencilOperator<T> op;
  Field<T> u;
};

// Every rank calls it with the same whole operator and initial u (CPU): the process grid
// is `ranks_grid` ("PxQ[xR]"; empty chooses), a masked domain's cuts placed by unknowns.
template <class T>
RankShare<T> share_for_ranks(const ResolvedSolve& r, const StencilOperator<T>& whole,
                             const Field<T>& u, const std::string& ranks_grid);

// Every rank calls it with its own part of the operator and of the initial u, assembled on
// its box on the device that solves (assemble_axisymmetric with a RankPart) or shared out
// by share_for_ranks: the solve, then u gathered into `whole` (a CPU field of the grid's
// nodes) on rank 0, or on every rank, or left in u_part (SolutionOn::parts); the other
// ranks' `whole` may be empty.
template <class T>
SolveReport solve_parts(const ResolvedSolve& r, const StencilOperator<T>& part, Field<T>& u_part,
                        Field<T>& whole, RanksUsed& used, SolutionOn where = SolutionOn::root);

// share_for_ranks, then solve_parts: u comes back whole on rank 0 (or every rank); the
// others' u is left as it was.
template <class T>
SolveReport solve_on_ranks(const ResolvedSolve& r, const StencilOperator<T>& whole, Field<T>& u,
                           const std::string& ranks_grid, RanksUsed& used,
                           SolutionOn where = SolutionOn::root);

}  // namespace gridsolve
