// gridsolve bench scaling: strong and weak scaling on the ranks of one launch (mpirun).
#pragma once
#include "gridsolve/cli/bench_command.hpp"

namespace gridsolve::cli {
int scaling_bench_command(const BenchSettings& s);
}
