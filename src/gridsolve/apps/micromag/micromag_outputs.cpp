// Table, pictures and plots of micromagnetic runs.
#include "gridsolve/apps/micromag/micromag_outputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numbers>
#include <regex>

#include "gridsolve/apps/micromag/field_term.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/gnuplot.hpp"
#include "gridsolve/io/result_set.hpp"

namespace gridsolve::micromag {

std::string table_csv(const std::vector<TableRow>& rows, const std::string& run_id) {
  std::string s =
      "t,mx,my,mz,E_total,E_exchange,E_anisotropy,E_zeeman,E_demag,E_dmi,max_torque,dt\n";
  for (const TableRow& r : rows)
    s += fmt::format(
        "{:.10e},{:.10f},{:.10f},{:.10f},{:.10e},{:.10e},{:.10e},{:.10e},{:.10e},{:.10e},{:.6e},"
        "{:.6e}\n",
        r.t, r.m[0], r.m[1], r.m[2], r.e.total(), r.e.exchange, r.e.anisotropy, r.e.zeeman,
        r.e.demag, r.e.dmi, r.max_torque, r.dt);
  return run_id.empty() ? s : with_run_id_column(s, run_id);
}

const std::vector<SavedField>& saved_fields() {
  static const std::vector<SavedField> all{
      {"B_demag", term_demag, false},     {"B_exch", term_exchange, false},
      {"B_anis", term_anisotropy, false}, {"B_ext", term_zeeman, false},
      {"B_dmi", term_dmi, false},         {"B_eff", term_all, false},
      {"torque", term_all, true}};
  return all;
}

std::vector<std::string_view> saved_field_names() {
  std::vector<std::string_view> out;
  for (const SavedField& f : saved_fields()) out.push_back(f.name);
  return out;
}

const SavedField& saved_field(std::string_view name) {
  for (const SavedField& f : saved_fields())
    if (f.name == name) return f;
  throw Error(fmt::format("no saved field is called '{}'", name));
}

std::array<std::vector<double>, 3> llg_torque(const MicromagProblem& problem,
                                              const std::array<std::vector<double>, 3>& m,
                                              const std::array<std::vector<double>, 3>& b) {
  const std::size_t n = m[0].size();
  std::array<std::vector<double>, 3> out;
  for (auto& c : out) c.assign(n, 0.0);
  for (std::size_t q = 0; q < n; ++q) {
    const std::uint8_t r = problem.region[q];
    if (r == vacuum || problem.regions[r].ms == 0) continue;
    const double a = problem.regions[r].alpha;
    const double mi[3] = {m[0][q], m[1][q], m[2][q]}, bi[3] = {b[0][q], b[1][q], b[2][q]};
    const double mxb[3] = {mi[1] * bi[2] - mi[2] * bi[1], mi[2] * bi[0] - mi[0] * bi[2],
                           mi[0] * bi[1] - mi[1] * bi[0]};
    const double mxmxb[3] = {mi[1] * mxb[2] - mi[2] * mxb[1], mi[2] * mxb[0] - mi[0] * mxb[2],
                             mi[0] * mxb[1] - mi[1] * mxb[0]};
    for (int c = 0; c < 3; ++c) out[c][q] = -(mxb[c] + a * mxmxb[c]) / (1 + a * a);
  }
  return out;
}

bool is_run_file(const std::string& name) {
  static const std::regex snapshot(
      R"((m|B_demag|B_exch|B_dmi|B_anis|B_ext|B_eff|torque)([0-9]{6}|_stage[0-9]+_[a-z]+|_L[0-9.]+_(flower|vortex))\.(ovf|h5|xdmf|png))");
  return name == "summary.json" || name == "table.csv" || name == "sp3.csv" || name == "m_t.png" ||
         std::regex_match(name, snapshot);
}

double first_zero_crossing_mx(const std::vector<TableRow>& rows) {
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const double a = rows[i - 1].m[0], b = rows[i].m[0];
    // Rows of a relax or minimize share one time, and a state that starts on <m_x> = 0 (a
    // vortex) only wobbles about it: neither is a crossing.
    if (rows[i].t <= rows[i - 1].t || std::abs(a) < 1e-3) continue;
    if ((a > 0 && b <= 0) || (a < 0 && b >= 0))
      return rows[i - 1].t + (rows[i].t - rows[i - 1].t) * a / (a - b);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

namespace {

// Gnuplot's enhanced text reads '_' as a subscript; titles show file names.
std::string plain_text(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '_' || c == '^' || c == '{' || c == '}' || c == '@' || c == '&') r += "\\\\";
    if (c == '"') r += '\\';
    r += c;
  }
  return r;
}

// Hue from the in-plane angle, lightened towards +z and darkened towards -z.
std::array<int, 3> colour(double mx, double my, double mz) {
  const double h = (std::atan2(my, mx) / (2 * std::numbers::pi) + 1.0) * 6.0;
  const double f = h - std::floor(h);
  const int sector = int(std::floor(h)) % 6;
  double r = 0, g = 0, b = 0;
  switch (sector) {
    case 0:
      r = 1, g = f, b = 0;
      break;
    case 1:
      r = 1 - f, g = 1, b = 0;
      break;
    case 2:
      r = 0, g = 1, b = f;
      break;
    case 3:
      r = 0, g = 1 - f, b = 1;
      break;
    case 4:
      r = f, g = 0, b = 1;
      break;
    default:
      r = 1, g = 0, b = 1 - f;
      break;
  }
  double rgb[3] = {r, g, b};
  std::array<int, 3> out{};
  for (int c = 0; c < 3; ++c) {
    double v = rgb[c];
    v = mz > 0 ? v + (1 - v) * mz : v * (1 + mz);
    out[c] = int(std::lround(255 * std::clamp(v, 0.0, 1.0)));
  }
  return out;
}

std::string run_plot(const std::string& dir, const std::string& name, const std::string& script,
                     const std::string& data_name, const std::string& data) {
  const std::filesystem::path work = std::filesystem::path(dir) / ".plot";
  std::error_code ec;
  std::filesystem::create_directories(work, ec);
  if (ec) return fmt::format("cannot create {}: {}", work.string(), ec.message());
  if (!data_name.empty()) write_file_atomically((work / data_name).string(), data);
  write_file_atomically((work / (name + ".gp")).string(), script);
  std::string problem = run_gnuplot(work.string(), name + ".gp");
  const std::string png = (std::filesystem::path(dir) / (name + ".png")).string();
  if (problem.empty()) {
    try {
      publish_file(png + ".tmp", png);  // a symbolic link kept, the file it names replaced
    } catch (const Error& e) {
      problem = fmt::format("could not rename {}.tmp: {}", png, e.what());
    }
  } else {
    std::filesystem::remove(png + ".tmp", ec);
  }
  std::filesystem::remove_all(work, ec);
  return problem;
}

}  // namespace

std::string plot_magnetization(const std::string& png_path, const Mesh& mesh,
                               const std::vector<std::uint8_t>& region,
                               const std::array<std::vector<double>, 3>& m,
                               const std::string& title) {
  const int k = mesh.n[2] / 2;
  std::string data;
  data.reserve(std::size_t(mesh.n[0]) * mesh.n[1] * 40);
  for (int j = 0; j < mesh.n[1]; ++j) {
    for (int i = 0; i < mesh.n[0]; ++i) {
      const std::size_t q = (std::size_t(k) * mesh.n[1] + j) * mesh.n[0] + i;
      const std::array<int, 3> c = region[q] == vacuum ? std::array<int, 3>{200, 200, 200}
                                                       : colour(m[0][q], m[1][q], m[2][q]);
      data += fmt::format("{:.6g} {:.6g} {} {} {}\n", (i + 0.5) * mesh.cell[0] * 1e9,
                          (j + 0.5) * mesh.cell[1] * 1e9, c[0], c[1], c[2]);
    }
    data += "\n";
  }
  const std::filesystem::path p(png_path);
  const std::string name = p.stem().string();
  const double aspect = mesh.n[1] * mesh.cell[1] / (mesh.n[0] * mesh.cell[0]);
  const int w = 1000, h = std::clamp(int(200 + 800 * aspect), 250, 1200);
  const std::string script = fmt::format(
      "set terminal pngcairo size {},{} enhanced font 'DejaVu Sans,12'\n"
      "set output '../{}.png.tmp'\n"
      "set title \"{}\\n{{/=10 hue: in-plane angle of m (red +x, green, blue ...), white +z, black "
      "-z}}\"\n"
      "set xlabel 'x (nm)'\nset ylabel 'y (nm)'\nset size ratio -1\nunset key\n"
      "set xrange [0:{:.6g}]\nset yrange [0:{:.6g}]\n"
      "plot 'm.dat' using 1:2:3:4:5 with rgbimage\n",
      w, h, name, plain_text(title), mesh.n[0] * mesh.cell[0] * 1e9,
      mesh.n[1] * mesh.cell[1] * 1e9);
  return run_plot(p.parent_path().string(), name, script, "m.dat", data);
}

std::string plot_average(const std::string& dir, const std::string& title) {
  const std::string script = fmt::format(
      "set terminal pngcairo size 1000,650 enhanced font 'DejaVu Sans,12'\n"
      "set output '../m_t.png.tmp'\n"
      "set datafile separator ','\n"
      "set title \"{}\"\n"
      "set xlabel 't (ns)'\nset ylabel '<m>'\nset yrange [-1.05:1.05]\nset grid\n"
      "set key outside right\n"
      "plot '../table.csv' using ($1*1e9):2 skip 1 with lines lw 2 title '<m_x>', \\\n"
      "     '' using ($1*1e9):3 skip 1 with lines lw 2 title '<m_y>', \\\n"
      "     '' using ($1*1e9):4 skip 1 with lines lw 2 title '<m_z>'\n",
      plain_text(title));
  return run_plot(dir, "m_t", script, "", "");
}

}  // namespace gridsolve::micromag
