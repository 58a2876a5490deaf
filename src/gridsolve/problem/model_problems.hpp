// Model problems with known answers: manufactured solutions and random right-hand sides.
#pragma once
#include <cstdint>
#include <string>

#include "gridsolve/problem/problem_spec.hpp"

namespace gridsolve {

struct ModelProblem {
  int dims = 2;
  int n = 129;                           // nodes per side of the unit square / cube
  std::string sides = "dirichlet";       // dirichlet | neumann | robin | periodic
                                         // | periodic-all
  std::string mask = "none";             // none | fixed (L-shape, Dirichlet re-entrant sides)
                                         // | hole (L-shape, zero-flux re-entrant sides)
  std::string coefficient = "constant";  // constant | variable (k = 1 + x y (+ z) / 2)
  std::string rhs = "manufactured";      // manufactured | random
  std::uint64_t seed = 1;
};

// manufactured: u = prod_a cos(w x_a + phi_a), f = -div(k grad u), side data from u.
//   sides neumann: du/dn on the low sides, Dirichlet on the high sides (Dirichlet
//   corners); robin: du/dn + u on every side; periodic: every axis but the last periodic,
//   the last Dirichlet; periodic-all: every axis periodic (u up to a constant: the zero-
//   mean one). On periodic axes w = 2 pi, and variable k = 1 + prod cos(2 pi x_a) / 2.
// random: f uniform in [-1, 1] at each node, u = 0 on every side, no exact solution.
ProblemSpec make_model_problem(const ModelProblem& m);

}  // namespace gridsolve
