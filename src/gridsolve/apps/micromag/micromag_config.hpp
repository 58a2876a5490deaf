// The `gridsolve micromag` configuration: mesh, shapes, regions, initial state, field,
// solver, stages and outputs, read from TOML (schema: docs/micromag.md).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gridsolve/apps/micromag/llg_stepper.hpp"
#include "gridsolve/apps/micromag/micromag_problem.hpp"

namespace gridsolve::micromag {

// A shape marks cells (by their centres) as material of a region, or removes material.
struct ShapeSpec {
  std::string kind;                       // box | cylinder | ellipsoid
  std::array<double, 3> center{0, 0, 0};  // m, from the centre of the mesh
  std::array<double, 3> size{0, 0, 0};    // m: edges / diameters (cylinder: x, y diameters, height)
  int axis = 2;                           // cylinder axis
  int region = 0;
  bool subtract = false;
};

struct InitialState {
  std::string kind = "uniform";  // uniform | random | vortex | file
  std::string file;              // file: an OVF 2.0 snapshot of the same mesh
  std::array<double, 3> direction{1, 0, 0};
  int seed = 1;
  int circulation = 1;     // vortex: +1 counter-clockwise seen from +z
  int polarity = 1;        // vortex, skyrmion: core along +z or -z
  double core_radius = 0;  // vortex core, skyrmion radius, m (0: two cells)
};

struct StageSpec {
  std::string kind;   // relax | minimize | run
  double time = 0;    // run: simulated seconds (with `until`: the most it may take)
  std::string until;  // run: ends when this condition holds (stop_condition.hpp)
  bool set_field = false;
  std::array<std::string, 3> field;  // B formulas (T) in t (s), applied from this stage on
};

struct MicromagConfig {
  MicromagProblem problem;
  std::vector<ShapeSpec> shapes;
  InitialState initial;
  std::array<std::string, 3> field{"0", "0", "0"};
  StepperOptions stepper;
  std::string device = "auto";
  std::string precision = "float";
  std::string fft = "auto";  // auto | skip | plain | fused
  std::int64_t relax_max_steps = 2000000;
  double minimize_stop = 0;  // 0: 1e-6 in float, 1e-9 in double
  std::int64_t minimize_max_iterations = 1000000;
  std::vector<StageSpec> stages;
  std::string out = "micromag-out";
  double table_interval = 1e-12;
  double snapshot_interval = 0;  // 0: snapshots at the end of each stage only
  bool ovf = true, hdf5 = true, plots = true;
  // Fields saved beside each m snapshot, by mumax3's names: B_demag, B_exch, B_anis, B_ext,
  // B_eff (T) and torque (the LLG torque over gamma, T).
  std::vector<std::string> fields;
  std::string source;  // the file, for messages and summary.json
  // [scan]: standard problem 3. Cubes of these edges (in exchange lengths of region 0)
  // are brought to equilibrium from a flower state (along the easy axis, which must lie in
  // the x-y plane) and from a vortex about z,
  // by `scan_stage` (relax or minimize); the energies give the edge where they are equal.
  std::vector<double> scan_edge_lex;
  std::string scan_stage = "minimize";
};

// Parses and checks; every problem is an Error naming the file, key and line.
MicromagConfig parse_micromag_config(std::string_view toml_text, const std::string& source_name);
MicromagConfig load_micromag_config(const std::string& path);

// Marks the cells of `c.problem` from the shapes (all material of region 0 without shapes).
void apply_shapes(MicromagConfig& c);

// The initial magnetization of the cells (x fastest).
std::array<std::vector<double>, 3> initial_magnetization(const MicromagConfig& c);

// B(t) from three formulas in t (muParser syntax; numbers are constants).
FieldOfTime field_of_time(const std::array<std::string, 3>& formulas);

}  // namespace gridsolve::micromag
