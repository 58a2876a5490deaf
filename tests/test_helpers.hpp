// Shared helpers for the tests: solving a spec to a tight tolerance, error norms.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve::testing {

// -lap u = f on the unit square / cube, f uniform in [-1, 1), zero Dirichlet sides.
inline ProblemSpec random_poisson(int dims, int n, std::uint64_t seed) {
  ModelProblem m;
  m.dims = dims;
  m.n = n;
  m.rhs = "random";
  m.seed = seed;
  return make_model_problem(m);
}

// The model problem (model_problems.hpp) of the given shape, as a spec.
inline ProblemSpec model(int dims, int n, const std::string& sides, const std::string& mask,
                         const std::string& k, const std::string& rhs = "manufactured") {
  ModelProblem m;
  m.dims = dims;
  m.n = n;
  m.sides = sides;
  m.mask = mask;
  m.coefficient = k;
  m.rhs = rhs;
  return make_model_problem(m);
}

template <class T = double>
struct Solved {
  Discretization<T> d;
  SolveReport report;
};

template <class T = double>
Solved<T> solve_spec(const ProblemSpec& spec, const std::string& solver, double tol = 1e-11,
                     Device device = Device::cpu) {
  Solved<T> s{assemble<T>(spec, device), {}};
  SolveOptions o;
  o.tolerance = tol;
  o.max_iterations = 2000000;
  s.report = make_solver<T>(solver)->solve(s.d.op, s.d.u, o);
  return s;
}

// max |u - exact| over nodes inside the domain.
template <class T>
double max_error(const ProblemSpec& spec, const Discretization<T>& d) {
  const std::vector<T> u = d.u.to_vector();
  const std::vector<T> e = sample_exact<T>(spec, Device::cpu).to_vector();
  std::vector<std::uint8_t> mask;
  if (!d.op.mask.empty()) mask = d.op.mask.to_vector();
  double m = 0;
  for (std::size_t n = 0; n < u.size(); ++n) {
    if (!mask.empty() && mask[n] == 2) continue;
    m = std::max(m, std::abs(double(u[n]) - double(e[n])));
  }
  return m;
}

template <class T>
double max_difference(const Field<T>& a, const Field<T>& b) {
  const std::vector<T> x = a.to_vector(), y = b.to_vector();
  double m = 0;
  for (std::size_t n = 0; n < x.size(); ++n) m = std::max(m, std::abs(double(x[n]) - double(y[n])));
  return m;
}

template <class T>
double max_abs(const Field<T>& a) {
  double m = 0;
  for (T v : a.to_vector()) m = std::max(m, std::abs(double(v)));
  return m;
}

}  // namespace gridsolve::testing
