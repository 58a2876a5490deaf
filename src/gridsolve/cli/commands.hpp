// The gridsolve command: sub-commands info, poisson, heat, solve and bench.
#pragma once

namespace gridsolve::cli {

// Exit codes: 0 converged / success, 1 anything else, 2 bad input, 3 not converged.
enum ExitCode { exit_ok = 0, exit_failure = 1, exit_bad_input = 2, exit_not_converged = 3 };

int run(int argc, char** argv);

}  // namespace gridsolve::cli
