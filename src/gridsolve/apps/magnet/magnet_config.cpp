// Magnet settings: the declared design parameters and the [magnet] / [solver] / [study] /
// [output] tables, read through the shared TOML reader.
#include "gridsolve/apps/magnet/magnet_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "gridsolve/apps/magnet/magnet_solve.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/io/toml_reader.hpp"

namespace gridsolve::magnet {

const std::vector<Parameter<MagnetDesign>>& magnet_parameters() {
  static const std::vector<Parameter<MagnetDesign>> params = {
      {"r0", "m", "magnet radius", &MagnetDesign::r0},
      {"z0", "m", "magnet half-height", &MagnetDesign::z0},
      {"r1", "m", "outer superconducting box radius", &MagnetDesign::r1},
      {"z1", "m", "outer box half-height", &MagnetDesign::z1},
      {"dr", "m", "radial mesh spacing", &MagnetDesign::dr},
      {"dz", "m", "axial mesh spacing", &MagnetDesign::dz},
      {"B", "T", "target field inside the magnet", &MagnetDesign::B},
      {"wires", "", "wires per half", &MagnetDesign::wires, "--wires,-N"},
      {"axis_span", "m", "central length of the axis for homogeneity", &MagnetDesign::axis_span},
      {"sphere_radius", "m", "radius of the homogeneity sphere", &MagnetDesign::sphere_radius,
       "--sphere"},
  };
  return params;
}

SolveSettings MagnetConfig::default_solve_settings() {
  SolveSettings s;
  s.solver = default_magnet_solver();
  s.default_tolerance = default_tolerance;
  return s;
}

double default_tolerance(Precision precision, const SolverInfo& solver) {
  if (precision == Precision::fp64) return 0.5e-6;
  // The true residual of a float multigrid solve stalls near 1e-5 on magnet problems;
  // the stationary solvers' floor is near 1e-4.
  return solver.stationary ? std::max(1e-3, solver.tolerance_fp32) : solver.tolerance_fp32;
}

MagnetConfig parse_magnet_config(std::string_view toml_text, const std::string& source_name,
                                 MagnetConfig c) {
  const TomlReader rd(toml_text, source_name);
  const toml::table& root = rd.root();
  rd.only_keys(root, "", {"magnet", "solver", "study", "output"});
  if (const toml::table* m = rd.table(root, "magnet", "")) {
    TomlReader::Names keys{"h"};
    for (const Parameter<MagnetDesign>& p : magnet_parameters()) keys.push_back(p.key);
    rd.only_keys(*m, "magnet", keys);
    MagnetDesign& d = c.design;
    if (auto h = rd.number(*m, "h", "magnet")) d.dr = d.dz = *h;
    for (const Parameter<MagnetDesign>& p : magnet_parameters()) {
      if (const auto* dm = std::get_if<double MagnetDesign::*>(&p.member)) {
        if (auto v = rd.number(*m, p.key, "magnet")) d.** dm = *v;
      } else if (const auto* im = std::get_if<int MagnetDesign::*>(&p.member)) {
        if (auto v = rd.integer(*m, p.key, "magnet", INT_MIN, INT_MAX)) d.** im = int(*v);
      }
    }
  }
  if (const toml::table* s = rd.table(root, "solver", "")) {
    rd.only_keys(
        *s, "solver",
        {"name", "device", "precision", "tolerance", "max_iterations", "omega", "residual"});
    SolveSettings& o = c.solve;
    if (auto v = rd.string(*s, "name", "solver")) {
      try {
        find_solver(*v);
      } catch (const Error& e) {
        rd.fail(s->get("name"), fmt::format("solver.name: {}", e.what()));
      }
      o.solver = *v;
    }
    if (auto v = rd.choice(*s, "device", "solver", {"auto", "cpu", "cuda"})) o.device = *v;
    if (auto v = rd.choice(*s, "precision", "solver", {"double", "float"}))
      o.precision = parse_precision(*v);
    if (auto v = rd.number(*s, "tolerance", "solver")) o.tolerance = *v;
    if (auto v = rd.integer(*s, "max_iterations", "solver", 1, INT_MAX))
      o.options.max_iterations = int(*v);
    if (auto v = rd.number(*s, "omega", "solver")) o.options.omega = *v;
    if (auto v = rd.choice(*s, "residual", "solver", {"volume", "diagonal"})) c.residual = *v;
  }
  if (const toml::table* s = rd.table(root, "study", "")) {
    rd.only_keys(*s, "study", {"spacings", "boxes", "box_spacing"});
    if (auto v = rd.numbers(*s, "spacings", "study")) c.study_spacings = *v;
    if (auto v = rd.numbers(*s, "boxes", "study")) c.study_boxes = *v;
    if (auto v = rd.number(*s, "box_spacing", "study")) c.study_box_spacing = *v;
  }
  if (const toml::table* o = rd.table(root, "output", "")) {
    rd.only_keys(*o, "output", {"dir"});
    if (auto v = rd.string(*o, "dir", "output")) {
      if (v->empty()) rd.fail(o->get("dir"), "output.dir must not be empty");
      c.out = *v;
    }
  }
  return c;
}

MagnetConfig load_magnet_config(const std::string& path, MagnetConfig base) {
  return parse_magnet_config(read_input_file(path, TomlReader::max_bytes, "config"), path,
                             std::move(base));
}

}  // namespace gridsolve::magnet
