// Aharoni's closed form of the demagnetizing factors of a rectangular prism, the
// reference for the demag tests.
#pragma once
#include <cmath>
#include <numbers>

// Aharoni (1998), J. Appl. Phys. 83, 3432: the demagnetizing factor along z of a
// rectangular prism 2a x 2b x 2c, written independently of Newell's f and g.
inline double aharoni_nzz(double a, double b, double c) {
  const double abc = std::sqrt(a * a + b * b + c * c);
  const double ab = std::sqrt(a * a + b * b), bc = std::sqrt(b * b + c * c),
               ac = std::sqrt(a * a + c * c);
  const double s =
      (b * b - c * c) / (2 * b * c) * std::log((abc - a) / (abc + a)) +
      (a * a - c * c) / (2 * a * c) * std::log((abc - b) / (abc + b)) +
      b / (2 * c) * std::log((ab + a) / (ab - a)) + a / (2 * c) * std::log((ab + b) / (ab - b)) +
      c / (2 * a) * std::log((bc - b) / (bc + b)) + c / (2 * b) * std::log((ac - a) / (ac + a)) +
      2 * std::atan(a * b / (c * abc)) + (a * a * a + b * b * b - 2 * c * c * c) / (3 * a * b * c) +
      (a * a + b * b - 2 * c * c) / (3 * a * b * c) * abc + c / (a * b) * (ac + bc) -
      (std::pow(ab, 3) + std::pow(bc, 3) + std::pow(ac, 3)) / (3 * a * b * c);
  return s / std::numbers::pi;
}

// The demagnetizing factor along the side v of an infinitely long prism whose cross-section
// is u x v (the two-dimensional limit, from integrating the field of the charged faces
// over the cross-section): 1/2 for a square, -> 1 as v / u -> 0.
inline double infinite_prism_factor(double u, double v) {
  const double i = u * v * std::atan(u / v) + u * u / 2 * std::log(1 + v * v / (u * u)) -
                   0.25 * ((u * u + v * v) * std::log(u * u + v * v) - u * u * std::log(u * u) -
                           v * v * std::log(v * v));
  return 2 * i / (std::numbers::pi * u * v);
}
