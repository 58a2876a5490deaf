// Magnet run settings from a TOML file: [magnet] geometry and field, [solver], [study],
// [output]. Unknown keys and wrong types are errors that name the key and line.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridsolve/apps/magnet/magnet_design.hpp"

namespace gridsolve::magnet {

struct MagnetConfig {
  MagnetDesign design;
  std::string solver;  // empty: the default solver
  std::string device = "auto";
  std::string precision = "double";
  double tolerance = 0;  // relative residual; 0: default_tolerance()
  int max_iterations = 1000000;
  double omega = 0;                 // SOR factor; 0: the source's estimate
  std::string residual = "volume";  // volume | diagonal (see MagnetSolveSettings)
  std::string out = "magnet-out";
  std::vector<double> study_spacings{0.025, 0.0125, 0.00625};
  std::vector<double> study_boxes{1.0, 2.0, 3.0, 4.0};  // r1 = z1 for each step
  double study_box_spacing = 0.01;
};

// The relative residual to stop at when none is given: the source's 0.5e-6 in double;
// in float the residual's rounding floor on this problem is near 1e-4 for SOR-type
// solvers, so 1e-5 with multigrid (mg, mgcg) and 1e-3 with the others.
double default_tolerance(const std::string& precision, const std::string& solver);

// Reads `path` over the defaults in `base`. Throws Error (invalid input) naming the
// file, key and line.
MagnetConfig load_magnet_config(const std::string& path, MagnetConfig base = {});
MagnetConfig parse_magnet_config(std::string_view toml_text, const std::string& source_name,
                                 MagnetConfig base = {});

}  // namespace gridsolve::magnet
