#include "gridsolve/apps/magnet/homogeneity.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace gridsolve::magnet {

std::vector<AxisSample> axis_profile(const std::vector<CurrentLoop>& loops, double length,
                                     int samples) {
  const double b0 = axial_field(loops, 0.0);
  std::vector<AxisSample> out;
  for (int k = 0; k < samples; ++k) {
    AxisSample s;
    s.z = -0.5 * length + length * k / std::max(1, samples - 1);
    s.bz = axial_field(loops, s.z);
    s.ppm = (s.bz - b0) / b0 * 1e6;
    out.push_back(s);
  }
  return out;
}

Homogeneity homogeneity(const std::vector<CurrentLoop>& loops, double axis_span,
                        double sphere_radius) {
  Homogeneity h;
  h.b0 = axial_field(loops, 0.0);
  h.wire_current = loops.empty() ? 0.0 : loops.front().current;
  h.efficiency = h.wire_current != 0 ? h.b0 / h.wire_current : 0.0;
  h.axis_span = axis_span;
  const std::vector<AxisSample> axis = axis_profile(loops, axis_span, 801);
  const auto [lo, hi] =
      std::minmax_element(axis.begin(), axis.end(),
                          [](const AxisSample& a, const AxisSample& b) { return a.bz < b.bz; });
  h.axis_ppm = (hi->bz - lo->bz) / h.b0 * 1e6;

  // |B| is subharmonic, so its maximum sits on the sphere's surface but its minimum may
  // not: sample the whole meridian half-disc (the field is axisymmetric).
  h.sphere_radius = sphere_radius;
  double bmin = h.b0, bmax = h.b0;
  const int radial = 40, polar = 90;
  for (int a = 1; a <= radial; ++a)
    for (int p = 0; p <= polar; ++p) {
      const double rho = sphere_radius * a / radial, theta = std::numbers::pi * p / polar;
      const double b = loop_field(loops, rho * std::sin(theta), rho * std::cos(theta)).magnitude();
      bmin = std::min(bmin, b);
      bmax = std::max(bmax, b);
    }
  h.sphere_ppm = (bmax - bmin) / h.b0 * 1e6;
  return h;
}

}  // namespace gridsolve::magnet
