// ProblemSpec: a continuous problem -div(k grad u) = f on a box with masks and sides.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "gridsolve/core/grid.hpp"
#include "gridsolve/problem/boundary.hpp"
#include "gridsolve/problem/expression.hpp"

namespace gridsolve {

// Node states of a mask.
enum class NodeKind : unsigned char { free = 0, fixed = 1, outside = 2 };

// A box in physical coordinates whose nodes are fixed (Dirichlet value) or cut out of
// the domain. Later regions override earlier ones.
struct MaskRegion {
  NodeKind kind = NodeKind::fixed;
  std::array<double, 3> lo{0, 0, 0};
  std::array<double, 3> hi{0, 0, 0};
  Expression value = Expression::value(0);  // fixed regions only
  std::string name;                         // how messages name it ("mask[1]"); may be empty
};

struct ProblemSpec {
  Grid grid;
  Expression k = Expression::value(1);
  Expression f = Expression::value(0);
  // Per-node values override k / f when not empty (x fastest, no ghosts).
  std::vector<double> k_nodes;
  std::vector<double> f_nodes;
  Boundaries boundaries{};
  std::vector<MaskRegion> regions;
  std::optional<Expression> exact;  // when known, solutions are checked against it
  std::string name = "poisson";

  // Throws Error when something cannot be solved (empty domain, bad sizes, ...).
  void validate() const;
  // Whether every expression in it may be evaluated from several threads at once.
  bool concurrent() const;
};

}  // namespace gridsolve
