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
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/problem/problem_spec.hpp"
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
RankShare<T> share_for_ranks(const ResolvedSolve& r, const StencilOperator<T>& whole,
                             const Field<T>& u, const std::string& ranks_grid) {
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
  return RankShare<T>{operator_part(whole, parts, comm.rank()).copy_to(r.device),
                      field_part(u, parts, comm.rank()).copy_to(r.device)};
}

template <class T>
SolveReport solve_on_ranks(const ResolvedSolve& r, const StencilOperator<T>& whole, Field<T>& u,
                           const std::string& ranks_grid, RanksUsed& used, SolutionOn where) {
  RankShare<T> mine = share_for_ranks(r, whole, u, ranks_grid);
  return solve_parts(r, mine.op, mine.u, u, used, where);
}

template <class T>
SolveReport solve_parts(const ResolvedSolve& r, const StencilOperator<T>& part, Field<T>& u_part,
                        Field<T>& whole, RanksUsed& used, SolutionOn where) {
  const Communicator& comm = Communicator::world();
  require(part.parts && part.device == r.device && u_part.device() == r.device,
          "solve_parts takes each rank's part of the operator and of u on the device that solves");
  used.ranks = comm.size();
  used.grid = part.parts->describe();
  // Each rank counts its own unknowns; every rank learns all the counts.
  const FieldView<const std::uint8_t> m =
      part.mask.empty() ? FieldView<const std::uint8_t>{} : part.mask.cview();
  const bool masked = !part.mask.empty();
  const double mine = double(reduce<std::int64_t>(
      r.device, part.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> std::int64_t {
        return !masked || m(i, j, k) == std::uint8_t(NodeKind::free) ? 1 : 0;
      },
      SumOp{}, std::int64_t(0)));
  used.unknowns_per_rank.clear();
  for (const double n : comm.gather_all(std::span<const double>(&mine, 1)))
    used.unknowns_per_rank.push_back(std::int64_t(n));
  const double gpu = r.device == Device::cuda ? double(current_gpu()) : -1.0;
  used.devices.clear();
  for (const double n : comm.gather_all(std::span<const double>(&gpu, 1)))
    used.devices.push_back(n < 0 ? std::string("cpu") : fmt::format("cuda:{}", int(n)));
  if (r.device == Device::cuda) used.device_link = DeviceLink::world().describe();
  SolveReport report = run_solve<T>(r, part, u_part);
  if (where == SolutionOn::parts) return report;
  if (whole.empty() && (comm.is_root() || where == SolutionOn::every_rank))
    whole = Field<T>(part.grid, part.active.centring, 1, u_part.ghost(), Device::cpu);
  gather_parts(u_part, whole);
  if (where == SolutionOn::every_rank)  // the whole storage, ghosts and all, from rank 0
    comm.broadcast(std::as_writable_bytes(
        std::span<T>(whole.storage(), std::size_t(whole.storage_size()))));
  return report;
}

template std::array<int, 3> default_process_grid(const SolverInfo&, const StencilOperator<float>&,
                                                 int);
template std::array<int, 3> default_process_grid(const SolverInfo&, const StencilOperator<double>&,
                                                 int);
template RankShare<float> share_for_ranks(const ResolvedSolve&, const StencilOperator<float>&,
                                          const Field<float>&, const std::string&);
template RankShare<double> share_for_ranks(const ResolvedSolve&, const StencilOperator<double>&,
                                           const Field<double>&, const std::string&);
template SolveReport solve_parts(const ResolvedSolve&, const StencilOperator<float>&, Field<float>&,
                                 Field<float>&, RanksUsed&, SolutionOn);
template SolveReport solve_parts(const ResolvedSolve&, const StencilOperator<double>&,
                                 Field<double>&, Field<double>&, RanksUsed&, SolutionOn);
template SolveReport solve_on_ranks(const ResolvedSolve&, const StencilOperator<float>&,
                                    Field<float>&, const std::string&, RanksUsed&, SolutionOn);
template SolveReport solve_on_ranks(const ResolvedSolve&, const StencilOperator<double>&,
                                    Field<double>&, const std::string&, RanksUsed&, SolutionOn);

}  // namespace gridsolve
