// The HYPRE solver that the hypre-pfmg row and bench mg's HYPRE peer program both run:
// Struct PCG (two-norm stop) preconditioned by one PFMG V(1,1) cycle of symmetric red-black
// Gauss-Seidel from a zero guess. Header only, so the peer program needs HYPRE alone.
#pragma once
#include <HYPRE_struct_ls.h>

namespace gridsolve {

struct HyprePfmgPcg {
  HYPRE_StructSolver pcg = nullptr;
  HYPRE_StructSolver pfmg = nullptr;

  HyprePfmgPcg(MPI_Comm comm, double tolerance, int max_iterations) {
    HYPRE_StructPCGCreate(comm, &pcg);
    HYPRE_StructPCGSetTol(pcg, tolerance);
    HYPRE_StructPCGSetTwoNorm(pcg, 1);
    HYPRE_StructPCGSetMaxIter(pcg, max_iterations);
    HYPRE_StructPFMGCreate(comm, &pfmg);
    HYPRE_StructPFMGSetMaxIter(pfmg, 1);
    HYPRE_StructPFMGSetTol(pfmg, 0.0);
    HYPRE_StructPFMGSetZeroGuess(pfmg);
    HYPRE_StructPFMGSetRelaxType(pfmg, 2);  // symmetric red-black Gauss-Seidel
    HYPRE_StructPFMGSetNumPreRelax(pfmg, 1);
    HYPRE_StructPFMGSetNumPostRelax(pfmg, 1);
    HYPRE_StructPCGSetPrecond(pcg, HYPRE_StructPFMGSolve, HYPRE_StructPFMGSetup, pfmg);
  }
  ~HyprePfmgPcg() {
    HYPRE_StructPFMGDestroy(pfmg);
    HYPRE_StructPCGDestroy(pcg);
  }
  HyprePfmgPcg(const HyprePfmgPcg&) = delete;
  HyprePfmgPcg& operator=(const HyprePfmgPcg&) = delete;
};

}  // namespace gridsolve
