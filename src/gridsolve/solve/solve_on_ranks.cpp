// solve_on_ranks: decomposition, each rank's part on its device, the solve, the gather.
#include "gridsolve/solve/solve_on_ranks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <memory>
#include <span>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/exec/device_link.hpp"
#include "gridsolve/exec/field_part.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/problem/stencil_operator_part.hpp"
#include "gridsolve/solve/direct_poisson.hpp"

namespace gridsolve {

std::string describe(const RanksUsed& used) {
  return fmt::format("{} (process grid {}) on {}{}", used.ranks, used.grid,
                     fmt::join(used.devices, ", "),
                     used.device_link.empty() ? "" : "; device buffers by " + used.device_link);
}

template <class T>
std::array<int, 3> default_process_grid(const SolverInfo& solver, const StencilOperator<T>& whole,
                                        int ranks) {
  const int axis = solver.slabs ? slab_axis(whole) : -1;
  if (axis < 0) return {0, 0, 0};
  std::array<int, 3> grid{1, 1, 1};
  grid[std::size_t(axis)] = ranks;
  return grid;
}

template <class T>
SolveReport solve_on_ranks(const ResolvedSolve& r, const StencilOperator<T>& whole, Field<T>& u,
                           const std::string& ranks_grid, RanksUsed& used, SolutionOn where) {
  const Communicator& comm = Communicator::world();
  const Grid& g = whole.grid;
  std::array<bool, 3> periodic{};
  for (int a = 0; a < 3; ++a) periodic[a] = (whole.periodic >> a) & 1;
  const std::array<int, 3> asked = ranks_grid.empty()
                                       ? default_process_grid(*r.solver, whole, comm.size())
                                       : parse_ranks_grid(ranks_grid, g.dims, comm.size());
  const Decomposition even(g.box(Centring::node()), g.dims, comm.size(), periodic, asked);
  // A masked domain's cuts follow its unknowns, so that no rank waits on a fuller one.
  auto parts = std::make_shared<const Decomposition>(
      whole.mask.empty() ? even : even.balanced(unknowns_per_plane(whole)));
  used.ranks = comm.size();
  used.grid = parts->describe();
  used.unknowns_per_rank.clear();
  for (int rank = 0; rank < comm.size(); ++rank)
    used.unknowns_per_rank.push_back(unknowns_in(whole, parts->box(rank)));
  const double gpu = r.device == Device::cuda ? double(current_gpu()) : -1.0;
  used.devices.clear();
  for (const double n : comm.gather_all(std::span<const double>(&gpu, 1)))
    used.devices.push_back(n < 0 ? std::string("cpu") : fmt::format("cuda:{}", int(n)));
  if (r.device == Device::cuda) used.device_link = DeviceLink::world().describe();
  const StencilOperator<T> op = operator_part(whole, parts, comm.rank()).copy_to(r.device);
  Field<T> mine = field_part(u, parts, comm.rank()).copy_to(r.device);
  SolveReport report = run_solve<T>(r, op, mine);
  gather_parts(mine, u);
  if (where == SolutionOn::every_rank)  // the whole storage, ghosts and all, from rank 0
    comm.broadcast(
        std::as_writable_bytes(std::span<T>(u.storage(), std::size_t(u.storage_size()))));
  return report;
}

template std::array<int, 3> default_process_grid(const SolverInfo&, const StencilOperator<float>&,
                                                 int);
template std::array<int, 3> default_process_grid(const SolverInfo&, const StencilOperator<double>&,
                                                 int);
template SolveReport solve_on_ranks(const ResolvedSolve&, const StencilOperator<float>&,
                                    Field<float>&, const std::string&, RanksUsed&, SolutionOn);
template SolveReport solve_on_ranks(const ResolvedSolve&, const StencilOperator<double>&,
                                    Field<double>&, const std::string&, RanksUsed&, SolutionOn);

}  // namespace gridsolve
