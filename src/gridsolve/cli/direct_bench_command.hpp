// gridsolve bench tridiag | poisson: direct solvers beside the copy ceiling and peers.
#pragma once
#include "gridsolve/cli/bench_command.hpp"

namespace gridsolve::cli {

// --n: tridiag, rows and systems of the batch (the long system has 4096 n rows);
// poisson, unknowns per side. Left at the stencil default, the sizes of the targets
// are used: 4096 x 4096 and 2^24 for tridiag, 4095^2 for poisson.
int direct_bench_command(const BenchSettings& s);

}  // namespace gridsolve::cli
