// gridsolve bench micromag: one demag evaluation (zero-skipping and plain) against the
// plain padded transforms it needs, and full LLG steps (Heun, as mumax3's benchmark) in
// cells x field evaluations per second, float and double, with mumax3 beside when given.
#pragma once
#include <string>

namespace gridsolve {

struct MicromagBenchOptions {
  std::string mesh = "2048x2048x1";
  std::string device = "auto";
  int repeats = 5;
  std::string peer;  // folder holding bin/mumax3
  std::string out;
};

int micromag_bench(const MicromagBenchOptions& o);

}  // namespace gridsolve
