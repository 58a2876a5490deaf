// Field quality of a wire layout: on-axis profile, peak-to-peak deviation in ppm over the
// central part of the axis and over a central sphere, and efficiency B(0) / I.
#pragma once
#include <vector>

#include "gridsolve/apps/magnet/biot_savart.hpp"

namespace gridsolve::magnet {

struct AxisSample {
  double z = 0, bz = 0, ppm = 0;  // ppm: (B(z) - B(0)) / B(0) * 1e6
};

struct Homogeneity {
  double b0 = 0;            // B_z at the centre, tesla
  double wire_current = 0;  // amperes per wire
  double efficiency = 0;    // B(0) / I per wire, tesla per ampere
  double axis_span = 0;     // metres, centred on z = 0
  double axis_ppm = 0;      // peak-to-peak of B_z over the span, ppm of B(0)
  double sphere_radius = 0;
  double sphere_ppm = 0;  // peak-to-peak of |B| over the sphere, ppm of B(0)
};

// `samples` points evenly spaced over [-length / 2, length / 2].
std::vector<AxisSample> axis_profile(const std::vector<CurrentLoop>& loops, double length,
                                     int samples);

Homogeneity homogeneity(const std::vector<CurrentLoop>& loops, double axis_span,
                        double sphere_radius);

}  // namespace gridsolve::magnet
