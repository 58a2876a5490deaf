// gridsolve bench mg: multigrid and MG-PCG time to solution against HYPRE PFMG-PCG.
#pragma once
#include "gridsolve/cli/bench_command.hpp"

namespace gridsolve::cli {
int multigrid_bench_command(const BenchSettings& s);
}
