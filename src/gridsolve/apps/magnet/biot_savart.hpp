// Biot-Savart field of coaxial circular current loops, on and off the axis.
#pragma once
#include <vector>

namespace gridsolve::magnet {

// A circular loop of `radius` around the z axis at height z, carrying `current`
// (amperes, positive in the +phi sense, which makes +B_z inside).
struct CurrentLoop {
  double radius = 0, z = 0, current = 0;
};

// B_z on the axis: sum mu0 I a^2 / (2 (a^2 + (z - z_i)^2)^(3/2)), tesla.
double axial_field(const std::vector<CurrentLoop>& loops, double z);

struct FieldRZ {
  double br = 0, bz = 0;
  double magnitude() const;
};

// (B_r, B_z) at (r, z) from complete elliptic integrals K(k), E(k) of modulus
// k^2 = 4 a r / ((a + r)^2 + (z - z_i)^2) (std::comp_ellint_1 / 2); on the axis the
// axial formula. Undefined on a wire itself.
FieldRZ loop_field(const std::vector<CurrentLoop>& loops, double r, double z);

}  // namespace gridsolve::magnet
