// Magnet run settings from a TOML file: [magnet] geometry and field, [solver], [study],
// [output]. Unknown keys and wrong types are errors that name the key and line.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridsolve/apps/magnet/magnet_design.hpp"
#include "gridsolve/apps/parameters.hpp"
#include "gridsolve/solve/solve_settings.hpp"

namespace gridsolve::magnet {

// The design's parameters, declared once for the command line, [magnet] and
// summary.json. "h" (both spacings at once) is read beside them.
const std::vector<Parameter<MagnetDesign>>& magnet_parameters();

struct MagnetConfig {
  MagnetDesign design;
  // The solver (default_magnet_solver() unless set), device, precision, tolerance
  // (default_tolerance() unless set), iteration cap and omega.
  SolveSettings solve = default_solve_settings();
  std::string residual = "volume";  // volume | diagonal (see MagnetSolveSettings)
  std::string out = "magnet-out";
  std::vector<double> study_spacings{0.025, 0.0125, 0.00625};
  std::vector<double> study_boxes{1.0, 2.0, 3.0, 4.0};  // r1 = z1 for each step
  double study_box_spacing = 0.01;

  static SolveSettings default_solve_settings();
};

// The relative residual to stop at when none is given: the source's 0.5e-6 in double;
// in float the solver's registry default (1e-4), except that the stationary solvers'
// rounding floor on this problem is near 1e-4, so they stop at 1e-3.
double default_tolerance(Precision precision, const SolverInfo& solver);

// Reads `path` over the defaults in `base`. Throws Error (invalid input) naming the
// file, key and line.
MagnetConfig load_magnet_config(const std::string& path, MagnetConfig base = {});
MagnetConfig parse_magnet_config(std::string_view toml_text, const std::string& source_name,
                                 MagnetConfig base = {});

}  // namespace gridsolve::magnet
