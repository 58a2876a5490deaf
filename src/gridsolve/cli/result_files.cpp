// The files a solve leaves in --out, staged and published together.
#include "gridsolve/cli/result_files.hpp"

#include <nlohmann/json.hpp>

#include <optional>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/hdf5_writer.hpp"
#include "gridsolve/io/history_csv.hpp"
#include "gridsolve/io/result_set.hpp"
#include "gridsolve/io/summary_json.hpp"

namespace gridsolve::cli {

template <class T>
void ResultFiles::write(const ProblemSpec& spec, const RunSettings& settings, Device device,
                        const SolveReport& report, double max_error, double assembly_seconds,
                        const Field<T>& u, const Field<T>& exact,
                        const Field<std::uint8_t>& node_kinds) const {
  // Staged together and published at once (summary.json last), so a run killed while
  // writing never leaves a folder that mixes its files with a previous run's. Fields that
  // are ranks' parts go into solution.h5 from every rank together; rank 0 alone holds the
  // set and writes the rest.
  const Communicator& comm = Communicator::world();
  const bool parts = u.decomposition() != nullptr && comm.size() > 1;
  std::optional<ResultSet> set;
  if (!parts || comm.is_root()) set.emplace(dir);
  const Grid& g = spec.grid;
  FieldFileWriter fields(g);
  if (!node_kinds.empty()) {
    std::vector<std::uint8_t> outside = node_kinds.to_vector();
    for (std::uint8_t& o : outside) o = o == std::uint8_t(NodeKind::outside);
    fields.blank_outside(std::move(outside), node_kinds.interior());
  }
  fields.add("u", u);
  if (!exact.empty()) {
    // error = u - exact, on the host: output is not a hot path.
    Field<T> err = u.copy_to(Device::cpu);
    const FieldView<T> e = err.view();
    const FieldView<const T> x = exact.cview();
    const Box b = err.interior();
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) e(i, j, k) -= x(i, j, k);
    fields.add("error", err);
  }
  if (parts)
    fields.stage_on_ranks(set ? &*set : nullptr, "solution");
  else
    fields.stage(*set, "solution");
  if (!set) return;
  set->stage_text("history.csv",
                 with_run_id_column(history_csv(report, settings.options.rule), set->run_id()));

  nlohmann::json j = to_json(report);
  j["run_id"] = set->run_id();
  j["command"] = settings.command;
  j["problem"] = spec.name;
  j["device"] = to_string(device);
  add_ranks_json(settings.used, to_string(device), j);
  j["precision"] = sizeof(T) == 8 ? "double" : "float";
  j["dims"] = g.dims;
  j["n"] = g.dims == 3 ? nlohmann::json::array({g.n[0], g.n[1], g.n[2]})
                       : nlohmann::json::array({g.n[0], g.n[1]});
  j["stop_rule"] = settings.options.rule == StopRule::residual ? "residual" : "update";
  j["tolerance"] = settings.options.tolerance;
  j["max_error"] = json_number(max_error);
  if (report.convergence_factor > 0) {
    j["convergence_factor"] = report.convergence_factor;
    j["cycle_factors"] = report.cycle_factors;
  }
  j["assembly_seconds"] = assembly_seconds;
  if (!settings.parameters.is_null()) j["parameters"] = settings.parameters;
  j["files"] = {{"solution", "solution.xdmf"}, {"history", "history.csv"}};
  set->stage_text("summary.json", json_text(j));
  set->commit("summary.json");
}

template void ResultFiles::write<float>(const ProblemSpec&, const RunSettings&, Device,
                                        const SolveReport&, double, double, const Field<float>&,
                                        const Field<float>&, const Field<std::uint8_t>&) const;
template void ResultFiles::write<double>(const ProblemSpec&, const RunSettings&, Device,
                                         const SolveReport&, double, double, const Field<double>&,
                                         const Field<double>&, const Field<std::uint8_t>&) const;

}  // namespace gridsolve::cli
