// Newell's closed form, the quadrature and the point-dipole forms of the demag tensor.
#include "gridsolve/transform/demag_tensor.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

namespace gridsolve::demag {

namespace {

// asinh(a / sqrt(b)) where b >= 0; the terms it appears in vanish when b = 0, so 0 is
// returned there rather than infinity.
double asinh_ratio(double a, double b2) {
  if (b2 <= 0) return 0;
  return std::asinh(a / std::sqrt(b2));
}

// atan(num / den) with den = 0 standing for a term that is multiplied by zero.
double atan_ratio(double num, double den) {
  if (den == 0) return 0;
  return std::atan(num / den);
}

using Fn = double (*)(double, double, double);

// -(1 / (4 pi V)) times the product of the three centred second differences of fn,
// taken at (x, y, z) with steps (dx, dy, dz): Newell's 27-term sum.
double second_differences(Fn fn, double x, double y, double z, double dx, double dy, double dz) {
  static const double weight[3] = {1, -2, 1};
  // Sum the smallest terms first: corners, then edges, faces, centre.
  double sum = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 3; ++c) {
        const double w = weight[a] * weight[b] * weight[c];
        sum += w * fn(x + (a - 1) * dx, y + (b - 1) * dy, z + (c - 1) * dz);
      }
  return -sum / (4 * std::numbers::pi * dx * dy * dz);
}

// Gauss-Legendre nodes and weights on [-1, 1] by Newton's method on P_n.
struct GaussRule {
  std::vector<double> x, w;
};
GaussRule gauss_legendre(int n) {
  GaussRule r;
  r.x.resize(n);
  r.w.resize(n);
  for (int i = 0; i < n; ++i) {
    double t = std::cos(std::numbers::pi * (i + 0.75) / (n + 0.5));
    double dp = 0;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1, p1 = t;
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2 * k - 1) * t * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      if (n == 1) p0 = 1, p1 = t;
      dp = n * (t * p1 - p0) / (t * t - 1);
      const double step = p1 / dp;
      t -= step;
      if (std::abs(step) < 1e-16) break;
    }
    r.x[i] = t;
    r.w[i] = 2 / ((1 - t * t) * dp * dp);
  }
  return r;
}

// The point-dipole kernel times -1: H = -K m for a moment m at distance r.
Tensor minus_dipole_kernel(double x, double y, double z) {
  const double r2 = x * x + y * y + z * z;
  const double r = std::sqrt(r2);
  const double inv3 = 1 / (r2 * r);
  const double inv5 = inv3 / r2;
  const double c = 1 / (4 * std::numbers::pi);
  return {c * (inv3 - 3 * x * x * inv5), c * (inv3 - 3 * y * y * inv5),
          c * (inv3 - 3 * z * z * inv5), -c * 3 * x * y * inv5,
          -c * 3 * x * z * inv5,         -c * 3 * y * z * inv5};
}

}  // namespace

double newell_f(double x, double y, double z) {
  x = std::abs(x);
  y = std::abs(y);
  z = std::abs(z);
  const double x2 = x * x, y2 = y * y, z2 = z * z;
  const double R = std::sqrt(x2 + y2 + z2);
  if (R == 0) return 0;
  double f = (2 * x2 - y2 - z2) * R / 6;
  if (y > 0) f += 0.5 * y * (z2 - x2) * asinh_ratio(y, x2 + z2);
  if (z > 0) f += 0.5 * z * (y2 - x2) * asinh_ratio(z, x2 + y2);
  if (x > 0 && y > 0 && z > 0) f -= x * y * z * atan_ratio(y * z, x * R);
  return f;
}

double newell_g(double x, double y, double z) {
  // g is odd in x and y and even in z: evaluate at |x|, |y|, |z| and restore the sign.
  const double sign = (x < 0 ? -1 : 1) * (y < 0 ? -1 : 1);
  x = std::abs(x);
  y = std::abs(y);
  z = std::abs(z);
  const double x2 = x * x, y2 = y * y, z2 = z * z;
  const double R = std::sqrt(x2 + y2 + z2);
  if (R == 0) return 0;
  double g = -x * y * R / 3;
  if (z > 0) g += x * y * z * asinh_ratio(z, x2 + y2);
  if (x > 0) g += y / 6 * (3 * z2 - y2) * asinh_ratio(x, y2 + z2);
  if (y > 0) g += x / 6 * (3 * z2 - x2) * asinh_ratio(y, x2 + z2);
  if (z > 0) g -= z2 * z / 6 * atan_ratio(x * y, z * R);
  if (y > 0) g -= z * y2 / 2 * atan_ratio(x * z, y * R);
  if (x > 0) g -= z * x2 / 2 * atan_ratio(y * z, x * R);
  return sign * g;
}

Tensor tensor_newell(std::array<double, 3> r, std::array<double, 3> h) {
  const auto [x, y, z] = r;
  const auto [dx, dy, dz] = h;
  // Permuting the arguments of f and g gives the other components (Newell's eq. 28-29).
  Fn f = newell_f, g = newell_g;
  Tensor n{};
  n[xx] = second_differences(f, x, y, z, dx, dy, dz);
  n[yy] = second_differences([](double a, double b, double c) { return newell_f(b, a, c); }, x, y,
                             z, dx, dy, dz);
  n[zz] = second_differences([](double a, double b, double c) { return newell_f(c, b, a); }, x, y,
                             z, dx, dy, dz);
  n[xy] = second_differences(g, x, y, z, dx, dy, dz);
  n[xz] = second_differences([](double a, double b, double c) { return newell_g(a, c, b); }, x, y,
                             z, dx, dy, dz);
  n[yz] = second_differences([](double a, double b, double c) { return newell_g(b, c, a); }, x, y,
                             z, dx, dy, dz);
  return n;
}

Tensor tensor_quadrature(std::array<double, 3> r, std::array<double, 3> h, int points) {
  // N(r) = (1/V) int -K(r + u) prod_a (h_a - |u_a|) du over |u_a| < h_a: the average over
  // the target cell of the field of the source cell, written as one integral over the
  // offset u with the tent weight. Each half axis gets its own Gauss rule (the tent has a
  // kink at 0).
  const GaussRule g = gauss_legendre(points);
  std::array<std::vector<double>, 3> node, weight;
  for (int a = 0; a < 3; ++a)
    for (int half = -1; half <= 1; half += 2)
      for (int q = 0; q < points; ++q) {
        const double u = half * 0.5 * h[a] * (1 + g.x[q]);  // in (0, h) or (-h, 0)
        node[a].push_back(u);
        weight[a].push_back(0.5 * h[a] * g.w[q] * (h[a] - std::abs(u)));
      }
  Tensor n{};
  const double V = h[0] * h[1] * h[2];
  for (std::size_t c = 0; c < node[2].size(); ++c)
    for (std::size_t b = 0; b < node[1].size(); ++b)
      for (std::size_t a = 0; a < node[0].size(); ++a) {
        const double w = weight[0][a] * weight[1][b] * weight[2][c] / V;
        const Tensor k =
            minus_dipole_kernel(r[0] + node[0][a], r[1] + node[1][b], r[2] + node[2][c]);
        for (int m = 0; m < 6; ++m) n[m] += w * k[m];
      }
  return n;
}

Tensor tensor_dipole(std::array<double, 3> r, std::array<double, 3> h) {
  Tensor n = minus_dipole_kernel(r[0], r[1], r[2]);
  const double V = h[0] * h[1] * h[2];
  for (double& v : n) v *= V;
  return n;
}

Tensor tensor(std::array<double, 3> r, std::array<double, 3> h) {
  const double hmax = std::max({h[0], h[1], h[2]});
  const double d = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]) / hmax;
  if (d <= newell_range) return tensor_newell(r, h);
  if (d <= quadrature_range) return tensor_quadrature(r, h, d < 40 ? 4 : 2);
  return tensor_dipole(r, h);
}

}  // namespace gridsolve::demag
