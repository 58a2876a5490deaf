#include "gridsolve/cli/info_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <span>
#include <string>
#include <vector>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/device_link.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve::cli {

int info_command() {
  const Communicator& world = Communicator::world();
  // Under mpirun every rank says which GPU it took, and how device buffers travel (a
  // collective, so before the ranks other than 0 leave); then one report, rank 0's.
  const double gpu = double(current_gpu());
  const std::vector<double> gpus = world.gather_all(std::span<const double>(&gpu, 1));
  const std::string link = world.size() > 1 ? DeviceLink::world().describe() : "";
  if (!world.is_root()) return 0;
  fmt::print("gridsolve 0.1.0\n");
#if GRIDSOLVE_HAVE_CUDA
  fmt::print("  build       CUDA path compiled in; OpenMP CPU path\n");
#else
  fmt::print("  build       CPU path only (built without CUDA); OpenMP\n");
#endif
  fmt::print("  cpu         {} OpenMP threads\n", cpu_threads());
  fmt::print("  mpi         {}; {} rank{} in this run\n", mpi_description(), world.size(),
             world.size() == 1 ? "" : "s");
#if GRIDSOLVE_HAVE_NCCL
  fmt::print("  nccl        built in: device buffers between ranks on GPUs of their own\n");
#else
  fmt::print("  nccl        not built in: device buffers between ranks go through host memory\n");
#endif
  if (world.size() > 1) {
    std::vector<std::string> where;
    for (const double g : gpus) where.push_back(g < 0 ? "cpu" : fmt::format("cuda:{}", int(g)));
    fmt::print("  ranks       on {}; device buffers by {}\n", fmt::join(where, ", "), link);
  }
  const auto devices = cuda_devices();
  if (devices.empty()) {
    fmt::print("  gpu         none: {}\n", cuda_unavailable_reason());
  } else {
    for (std::size_t d = 0; d < devices.size(); ++d) {
      const DeviceInfo& i = devices[d];
      fmt::print("  gpu {}       {} (sm_{}{}), {} SMs, {:.1f} GiB, {:.0f} GB/s peak\n", d, i.name,
                 i.compute_major, i.compute_minor, i.multiprocessors, i.memory_gib,
                 i.peak_bandwidth_gbs);
    }
  }
  fmt::print("  default     --device auto runs on {}\n", to_string(select_device("auto")));
  fmt::print("  solvers     (--solver, [solver] name; default tolerance double / float)\n");
  for (const SolverInfo& row : solver_registry())
    fmt::print("    {:<12} {:<44} {:<9} {:.0e} / {:.0e}{}\n", row.name, row.summary,
               row.cuda ? "cpu, cuda" : "cpu", row.tolerance_fp64, row.tolerance_fp32,
               row.aliases.empty() ? std::string()
                                   : fmt::format("   also: {}", fmt::join(row.aliases, ", ")));
  fmt::print("  precisions  double, float\n");
  return 0;
}

}  // namespace gridsolve::cli
