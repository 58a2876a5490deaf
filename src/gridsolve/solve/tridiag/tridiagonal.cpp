// Tridiagonal solves: argument checks, method choice and dispatch to the CPU or GPU.
#include "gridsolve/solve/tridiag/tridiagonal.hpp"

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"
#include "gridsolve/solve/tridiag/tridiagonal_cpu.hpp"

namespace gridsolve::tridiag {

std::string to_string(Method m) {
  switch (m) {
    case Method::automatic:
      return "auto";
    case Method::thomas:
      return "thomas";
    case Method::cyclic_reduction:
      return "cr";
    case Method::parallel_cyclic_reduction:
      return "pcr";
    case Method::cr_pcr:
      return "cr-pcr";
    case Method::partitioned:
      return "partitioned";
  }
  return "?";
}

Method parse_method(const std::string& name) {
  if (name == "auto" || name == "automatic") return Method::automatic;
  if (name == "thomas") return Method::thomas;
  if (name == "cr" || name == "cyclic-reduction") return Method::cyclic_reduction;
  if (name == "pcr" || name == "parallel-cyclic-reduction")
    return Method::parallel_cyclic_reduction;
  if (name == "cr-pcr" || name == "hybrid") return Method::cr_pcr;
  if (name == "partitioned") return Method::partitioned;
  throw Error(fmt::format(
      "tridiagonal method must be auto, thomas, cr, pcr, cr-pcr or partitioned, got '{}'", name));
}

std::string to_string(Layout l) {
  return l == Layout::strided ? "strided" : "interleaved";
}

Layout parse_layout(const std::string& name) {
  if (name == "strided") return Layout::strided;
  if (name == "interleaved") return Layout::interleaved;
  throw Error(fmt::format("layout must be strided or interleaved, got '{}'", name));
}

void throw_pivot_error(std::int64_t where, int n, Method method) {
  throw Error(fmt::format(
      "tridiagonal system {} has a zero or tiny pivot at row {} ({} method); these solvers do "
      "not pivot and need diagonally dominant or symmetric positive definite systems",
      where / n, where % n, to_string(method)));
}

template <class T>
Method choose_method(Device device, const Batch<T>& batch) {
  if (device == Device::cpu) return Method::thomas;
#if GRIDSOLVE_HAVE_CUDA
  // Interleaved lines: partitions of a system in registers across threads, on chip or in
  // two passes; faster than the pipelined Thomas at every measured batch shape.
  if (batch.layout == Layout::interleaved && batch.count > 1) return Method::partitioned;
  // Strided systems of 16 rows or more, one or many: a partition per thread gives n / 16
  // independent chains whatever the batch shape, against two per system for Thomas and
  // one block per system (one system per multiprocessor at a time) for cr-pcr.
  if (batch.n >= 16) return Method::partitioned;
  // Many tiny systems: Thomas, a lane pair per system.
  if (batch.count >= 1024) return Method::thomas;
  return Method::cr_pcr;
#else
  (void)batch;
  return Method::thomas;
#endif
}

template <class T>
void solve(Device device, const Batch<T>& batch, const Options& options) {
  require(batch.n >= 1,
          fmt::format("a tridiagonal system needs at least one row, got n = {}", batch.n));
  require(batch.count >= 1, fmt::format("need at least one system, got {}", batch.count));
  require(batch.a && batch.b && batch.c && batch.d, "tridiagonal solve: null array");
  const Method method =
      options.method == Method::automatic ? choose_method(device, batch) : options.method;
  if (device == Device::cpu) {
    require(method != Method::cr_pcr,
            "the cr-pcr method is the GPU's shared-memory hybrid; on the CPU use thomas, cr, "
            "pcr or partitioned");
    const std::int64_t bad = solve_cpu(batch, method);
    if (bad >= 0) throw_pivot_error(bad, batch.n, method);
    return;
  }
#if GRIDSOLVE_HAVE_CUDA
  const std::int64_t bad = solve_cuda(batch, method, options.check);
  if (bad >= 0) throw_pivot_error(bad, batch.n, method);
#else
  throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
}

template void solve<float>(Device, const Batch<float>&, const Options&);
template void solve<double>(Device, const Batch<double>&, const Options&);
template Method choose_method<float>(Device, const Batch<float>&);
template Method choose_method<double>(Device, const Batch<double>&);

}  // namespace gridsolve::tridiag
