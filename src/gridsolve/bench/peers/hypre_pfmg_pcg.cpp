// gridsolve-hypre-peer: the same 2D Poisson problem solved by HYPRE's PFMG-preconditioned
// CG, the structured-grid multigrid a user would otherwise reach for; prints one line.
#include <HYPRE_struct_ls.h>
#include <mpi.h>

#include "gridsolve/solve/hypre_pfmg_pcg.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

// Usage: gridsolve-hypre-peer N [tolerance]
// N x N unknowns, 5-point Laplacian scaled by h^2 (the finite-volume form gridsolve
// assembles), zero Dirichlet sides, right-hand side uniform in [-1, 1) times h^2, split
// into horizontal strips over the MPI ranks.
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1025;
  const double tol = argc > 2 ? std::atof(argv[2]) : 1e-8;
  if (n < 3) {
    if (rank == 0) std::fprintf(stderr, "gridsolve-hypre-peer: N must be at least 3\n");
    MPI_Finalize();
    return 2;
  }
  HYPRE_Init();
  const int rows_lo = int(std::int64_t(n) * rank / ranks),
            rows_hi = int(std::int64_t(n) * (rank + 1) / ranks) - 1;
  int ilower[2] = {0, rows_lo}, iupper[2] = {n - 1, rows_hi};

  HYPRE_StructGrid grid;
  HYPRE_StructGridCreate(MPI_COMM_WORLD, 2, &grid);
  HYPRE_StructGridSetExtents(grid, ilower, iupper);
  HYPRE_StructGridAssemble(grid);
  HYPRE_StructStencil stencil;
  HYPRE_StructStencilCreate(2, 5, &stencil);
  int offsets[5][2] = {{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}};
  for (int e = 0; e < 5; ++e) HYPRE_StructStencilSetElement(stencil, e, offsets[e]);

  HYPRE_StructMatrix A;
  HYPRE_StructMatrixCreate(MPI_COMM_WORLD, grid, stencil, &A);
  HYPRE_StructMatrixInitialize(A);
  const int local = n * (rows_hi - rows_lo + 1);
  std::vector<double> values(std::size_t(local) * 5);
  std::vector<double> rhs(static_cast<std::size_t>(local)),
      zero(static_cast<std::size_t>(local), 0.0);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  const double h = 1.0 / (n + 1);
  int c = 0;
  for (int j = rows_lo; j <= rows_hi; ++j)
    for (int i = 0; i < n; ++i, ++c) {
      values[5 * c + 0] = 4.0;
      values[5 * c + 1] = i > 0 ? -1.0 : 0.0;  // couplings to the Dirichlet sides vanish
      values[5 * c + 2] = i < n - 1 ? -1.0 : 0.0;
      values[5 * c + 3] = j > 0 ? -1.0 : 0.0;
      values[5 * c + 4] = j < n - 1 ? -1.0 : 0.0;
      rhs[c] = dist(rng) * h * h;
    }
  int entries[5] = {0, 1, 2, 3, 4};
  HYPRE_StructMatrixSetBoxValues(A, ilower, iupper, 5, entries, values.data());
  HYPRE_StructMatrixAssemble(A);
  HYPRE_StructVector b, x;
  HYPRE_StructVectorCreate(MPI_COMM_WORLD, grid, &b);
  HYPRE_StructVectorCreate(MPI_COMM_WORLD, grid, &x);
  HYPRE_StructVectorInitialize(b);
  HYPRE_StructVectorInitialize(x);
  HYPRE_StructVectorSetBoxValues(b, ilower, iupper, rhs.data());
  HYPRE_StructVectorSetBoxValues(x, ilower, iupper, zero.data());
  HYPRE_StructVectorAssemble(b);
  HYPRE_StructVectorAssemble(x);

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  {
    const gridsolve::HyprePfmgPcg solver(MPI_COMM_WORLD, tol, 500);
    HYPRE_StructPCGSetup(solver.pcg, A, b, x);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t1 = MPI_Wtime();
    HYPRE_StructPCGSolve(solver.pcg, A, b, x);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t2 = MPI_Wtime();
    int iterations = 0;
    double relres = 0;
    HYPRE_StructPCGGetNumIterations(solver.pcg, &iterations);
    HYPRE_StructPCGGetFinalRelativeResidualNorm(solver.pcg, &relres);
    if (rank == 0)
      std::printf(
          "hypre_pfmg_pcg n=%d ranks=%d setup_s=%.6f solve_s=%.6f iterations=%d relres=%.3e\n", n,
          ranks, t1 - t0, t2 - t1, iterations, relres);
  }
  HYPRE_StructVectorDestroy(x);
  HYPRE_StructVectorDestroy(b);
  HYPRE_StructMatrixDestroy(A);
  HYPRE_StructStencilDestroy(stencil);
  HYPRE_StructGridDestroy(grid);
  HYPRE_Finalize();
  MPI_Finalize();
  return 0;
}
