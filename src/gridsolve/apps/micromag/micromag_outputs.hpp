// Micromagnetic result files: the table of averages and energies, pictures of m in the
// film plane coloured by in-plane angle, and the <m>(t) plot through gnuplot.
#pragma once
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "gridsolve/apps/micromag/micromag_problem.hpp"

namespace gridsolve::micromag {

struct TableRow {
  double t = 0;
  std::array<double, 3> m{};
  Energies e;
  double max_torque = 0, dt = 0;
};

// A field a run can save beside each m snapshot, by mumax3's name: the terms of B it sums
// (field_term.hpp's Term flags); `torque` is the LLG torque of B_eff over gamma,
// -(m x B + alpha m x (m x B)) / (1 + alpha^2), in T.
struct SavedField {
  std::string_view name;
  unsigned terms;
  bool torque;
};
const std::vector<SavedField>& saved_fields();
std::vector<std::string_view> saved_field_names();
const SavedField& saved_field(std::string_view name);

// The LLG torque (T) of B at every cell of `problem` (zero where there is no material).
std::array<std::vector<double>, 3> llg_torque(const MicromagProblem& problem,
                                              const std::array<std::vector<double>, 3>& m,
                                              const std::array<std::vector<double>, 3>& b);

// CSV text: t, mx, my, mz first, then the energies, max_torque (T) and dt (s); with a
// run id, a last column run_id.
std::string table_csv(const std::vector<TableRow>& rows, const std::string& run_id = {});

// Whether `name` is one of the files a micromagnetic run writes into its folder
// (summary.json, table.csv, sp3.csv, m_t.png, the snapshots m000012.ovf,
// m_stage2_run.h5, m_L8.0000_vortex.ovf, B_demag_stage1_relax.ovf, ...): the previous run's are
// removed when a new run starts there.
bool is_run_file(const std::string& name);

// The first time <m_x> changes sign (linear interpolation between rows), or NaN.
double first_zero_crossing_mx(const std::vector<TableRow>& rows);

// Writes png_path (atomically) showing the middle layer of m: hue = in-plane angle,
// white / black = +z / -z, grey where there is no material. Returns what went wrong, or
// an empty string.
std::string plot_magnetization(const std::string& png_path, const Mesh& mesh,
                               const std::vector<std::uint8_t>& region,
                               const std::array<std::vector<double>, 3>& m,
                               const std::string& title);

// Plots <m_x>, <m_y>, <m_z> against t (ns) from table.csv in `dir` into dir/m_t.png.
std::string plot_average(const std::string& dir, const std::string& title);

}  // namespace gridsolve::micromag
