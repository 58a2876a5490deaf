// The files a solve leaves in --out: summary.json, history.csv, solution.h5 + .xdmf.
#pragma once
#include <cstdint>
#include <string>

#include "gridsolve/cli/run_problem.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/problem_spec.hpp"
#include "gridsolve/solve/solve_options.hpp"

namespace gridsolve::cli {

struct ResultFiles {
  std::string dir;

  // `exact` may be empty (no known solution); then no error field is written. Fields that
  // are ranks' parts (u, exact and node_kinds alike) are written by every rank together
  // (solution.h5 through parallel HDF5); every rank calls it then, rank 0 writes the rest.
  // `node_kinds` (NodeKind per node, empty when all are in the domain) marks the nodes
  // outside the domain: every field is NaN there, never a value nobody solved for.
  template <class T>
  void write(const ProblemSpec& spec, const RunSettings& settings, Device device,
             const SolveReport& report, double max_error, double assembly_seconds,
             const Field<T>& u, const Field<T>& exact, const Field<std::uint8_t>& node_kinds) const;
};

}  // namespace gridsolve::cli
