// hypre-pfmg: HYPRE's PFMG-preconditioned conjugate gradients (its structured multigrid)
// fed from our operator, on CPU ranks in double: a second engine for the same job, so a
// distributed solve can be checked against the library HPC users trust, in the same run.
#pragma once
#include <memory>
#include <string>

#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

// The solver (its registry row exists in builds with HYPRE: libhypre-dev, found with MPI).
// HYPRE works in double: the float solver refuses to solve, naming why.
template <class T>
std::unique_ptr<Solver<T>> make_hypre_pfmg();

}  // namespace gridsolve
