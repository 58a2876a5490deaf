#include "gridsolve/apps/magnet/biot_savart.hpp"

#include <cmath>
#include <numbers>

#include "gridsolve/apps/magnet/magnet_design.hpp"

namespace gridsolve::magnet {

double FieldRZ::magnitude() const {
  return std::hypot(br, bz);
}

double axial_field(const std::vector<CurrentLoop>& loops, double z) {
  double b = 0;
  for (const CurrentLoop& l : loops) {
    const double a2 = l.radius * l.radius, dz = z - l.z;
    b += mu0 * l.current * a2 / (2 * std::pow(a2 + dz * dz, 1.5));
  }
  return b;
}

FieldRZ loop_field(const std::vector<CurrentLoop>& loops, double r, double z) {
  FieldRZ f;
  for (const CurrentLoop& l : loops) {
    const double a = l.radius, dz = z - l.z;
    if (r <= 1e-12 * a) {  // on the axis B_r vanishes and the elliptic form is 0/0
      f.bz += axial_field({l}, z);
      continue;
    }
    const double sum2 = (a + r) * (a + r) + dz * dz, diff2 = (a - r) * (a - r) + dz * dz;
    const double k = std::sqrt(4 * a * r / sum2);
    const double K = std::comp_ellint_1(k), E = std::comp_ellint_2(k);
    const double c = mu0 * l.current / (2 * std::numbers::pi * std::sqrt(sum2));
    f.bz += c * (K + (a * a - r * r - dz * dz) / diff2 * E);
    f.br += c * dz / r * (-K + (a * a + r * r + dz * dz) / diff2 * E);
  }
  return f;
}

}  // namespace gridsolve::magnet
