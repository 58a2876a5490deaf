#include "gridsolve/problem/model_problems.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <random>

#include "gridsolve/core/error.hpp"

namespace gridsolve {

namespace {

// u = prod_a cos(w_a x_a + phi_a) over the active axes, with k = 1 + c * prod x_a.
struct Manufactured {
  int dims;
  double w[3], phi[3];
  bool variable_k;
  bool periodic_k = false;  // k = 1 + prod cos(2 pi x_a) / 2, periodic on the unit box

  double factor(int a, double x) const { return std::cos(w[a] * x + phi[a]); }
  double dfactor(int a, double x) const { return -w[a] * std::sin(w[a] * x + phi[a]); }
  double u(const double* x) const {
    double p = 1;
    for (int a = 0; a < dims; ++a) p *= factor(a, x[a]);
    return p;
  }
  double du(int axis, const double* x) const {
    double p = 1;
    for (int a = 0; a < dims; ++a) p *= a == axis ? dfactor(a, x[a]) : factor(a, x[a]);
    return p;
  }
  double k(const double* x) const {
    if (!variable_k) return 1;
    if (periodic_k) {
      double p = 0.5;
      for (int a = 0; a < dims; ++a) p *= std::cos(2 * std::numbers::pi * x[a]);
      return 1 + p;
    }
    double p = 1;
    for (int a = 0; a < dims; ++a) p *= x[a];
    return 1 + 0.5 * p;
  }
  double dk(int axis, const double* x) const {
    if (!variable_k) return 0;
    if (periodic_k) {
      const double tau = 2 * std::numbers::pi;
      double p = 0.5;
      for (int a = 0; a < dims; ++a)
        p *= a == axis ? -tau * std::sin(tau * x[a]) : std::cos(tau * x[a]);
      return p;
    }
    double p = 0.5;
    for (int a = 0; a < dims; ++a)
      if (a != axis) p *= x[a];
    return p;
  }
  // f = -k lap u - grad k . grad u; lap u = -(sum w_a^2) u for this u.
  double f(const double* x) const {
    double w2 = 0;
    for (int a = 0; a < dims; ++a) w2 += w[a] * w[a];
    double g = 0;
    for (int a = 0; a < dims; ++a) g += dk(a, x) * du(a, x);
    return k(x) * w2 * u(x) - g;
  }
};

}  // namespace

ProblemSpec make_model_problem(const ModelProblem& m) {
  require(m.dims == 2 || m.dims == 3, fmt::format("dims must be 2 or 3, got {}", m.dims));
  require(m.n >= 3, fmt::format("n must be at least 3, got {}", m.n));
  ProblemSpec spec;
  spec.grid = Grid::unit(m.dims, m.n);
  spec.name = fmt::format("poisson {}D, {} sides, {} rhs", m.dims, m.sides, m.rhs);
  const int d = m.dims;

  if (m.rhs == "random") {
    require(m.sides == "dirichlet" && m.mask == "none",
            "a random right-hand side comes with zero Dirichlet sides and no mask");
    std::mt19937_64 rng(m.seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    spec.f_nodes.resize(std::size_t(spec.grid.node_count()));
    for (double& v : spec.f_nodes) v = dist(rng);
    if (m.coefficient == "variable")
      spec.k =
          Expression::from([](double x, double y, double z) { return 1 + 0.5 * x * y * (z + 1); },
                           "1 + x y (z + 1) / 2");
    return spec;
  }
  require(m.rhs == "manufactured",
          fmt::format("rhs must be manufactured or random, got '{}'", m.rhs));
  require(m.coefficient == "constant" || m.coefficient == "variable",
          fmt::format("coefficient must be constant or variable, got '{}'", m.coefficient));

  auto mf = std::make_shared<Manufactured>();
  mf->dims = d;
  mf->variable_k = m.coefficient == "variable";
  const bool hole = m.mask == "hole";
  const bool periodic = m.sides == "periodic" || m.sides == "periodic-all";
  mf->periodic_k = periodic;
  auto wraps = [&](int a) { return m.sides == "periodic-all" || (periodic && a < d - 1); };
  for (int a = 0; a < 3; ++a) {
    // A hole needs zero normal derivative on x_a = 0.5: cos(2 pi x) has it; a periodic
    // axis needs whole waves on [0, 1].
    mf->w[a] = hole || wraps(a) ? 2 * std::numbers::pi : std::numbers::pi * (1.1 + 0.2 * a);
    mf->phi[a] = hole ? 0.0 : 0.3 + 0.2 * a;
  }
  auto at = [](double x, double y, double z) { return std::array<double, 3>{x, y, z}; };
  spec.exact = Expression::from(
      [mf, at](double x, double y, double z) { return mf->u(at(x, y, z).data()); }, "manufactured");
  spec.f =
      Expression::from([mf, at](double x, double y, double z) { return mf->f(at(x, y, z).data()); },
                       "-div(k grad u)");
  if (mf->variable_k)
    spec.k = Expression::from(
        [mf, at](double x, double y, double z) { return mf->k(at(x, y, z).data()); },
        "1 + prod(x) / 2");

  for (int face = 0; face < 2 * d; ++face) {
    const int axis = face / 2;
    const double sign = face % 2 ? 1.0 : -1.0;  // outward normal
    BoundaryCondition bc;
    auto dudn = [mf, at, axis, sign](double x, double y, double z) {
      return sign * mf->du(axis, at(x, y, z).data());
    };
    if (periodic && wraps(axis)) {
      bc.kind = BoundaryKind::periodic;
    } else if (m.sides == "dirichlet" || periodic || (m.sides == "neumann" && face % 2 == 1)) {
      bc.kind = BoundaryKind::dirichlet;
      bc.g = *spec.exact;
    } else if (m.sides == "neumann") {
      bc.kind = BoundaryKind::neumann;
      bc.g = Expression::from(dudn, "du/dn");
    } else if (m.sides == "robin") {
      bc.kind = BoundaryKind::robin;
      bc.alpha = 1.0;
      bc.g = Expression::from(
          [mf, at, dudn](double x, double y, double z) {
            return dudn(x, y, z) + mf->u(at(x, y, z).data());
          },
          "du/dn + u");
    } else {
      throw Error(fmt::format(
          "sides must be dirichlet, neumann, robin, periodic or periodic-all, got '{}'", m.sides));
    }
    spec.boundaries[face] = bc;
  }

  if (m.mask == "fixed" || m.mask == "hole") {
    MaskRegion r;
    r.kind = hole ? NodeKind::outside : NodeKind::fixed;
    r.lo = {0.5, 0.5, d == 3 ? 0.5 : 0.0};
    r.hi = {1.0, 1.0, 1.0};
    if (!hole) r.value = *spec.exact;
    spec.regions.push_back(r);
  } else {
    require(m.mask == "none", fmt::format("mask must be none, fixed or hole, got '{}'", m.mask));
  }
  return spec;
}

}  // namespace gridsolve
