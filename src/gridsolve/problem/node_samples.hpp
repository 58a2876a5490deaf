// Samples: an Expression or a per-node array sampled on a box of grid points and held
// in the memory of the device that assembles, so that loop bodies can read it by value.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gridsolve/core/box.hpp"
#include "gridsolve/core/grid.hpp"
#include "gridsolve/core/hd.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/problem/expression.hpp"

namespace gridsolve {

// What a loop body reads: a constant, or one value per point of `box` (x fastest).
// Whether v is a finite number (false for NaN and +-inf), in host and device code.
GRIDSOLVE_HD inline bool finite_number(double v) {
  return v >= -1.7976931348623157e308 && v <= 1.7976931348623157e308;
}

// "(0.5, 0.25)" or "(0.5, 0.25, 1)": where a value was found wrong, for messages.
std::string point_text(const Grid& g, double x, double y, double z);

struct SampleView {
  double constant = 0;
  const double* values = nullptr;  // null: every point takes `constant`
  Box box;
  std::int64_t pitch = 0, plane = 0;

  GRIDSOLVE_HD bool varies() const { return values != nullptr; }
  GRIDSOLVE_HD double operator()(int i, int j, int k) const {
    if (!values) return constant;
    return values[(i - box.lo[0]) + pitch * (j - box.lo[1]) + plane * (k - box.lo[2])];
  }
};

class Samples {
 public:
  Samples() = default;
  static Samples constant(double v);
  // e at the points of `box`: per axis the node (half = 0) or the midpoint between node i
  // and i + 1 (half = 1), z = 0 in 2D. A constant e stores nothing; a formula is
  // evaluated once per point in parallel on the host (one parser per thread, since a
  // parser keeps its variables inside it) and copied to device d once.
  // With `finite_what` ("the Dirichlet value on x_low"), a non-finite value throws Error
  // naming it and the first point (in x-fastest order) where it occurs.
  static Samples of(const Expression& e, const Grid& g, const Box& box, std::array<int, 3> half,
                    Device d, const std::string& finite_what = {});
  // Per-node values over the whole grid (x fastest, no ghosts). On the CPU the view reads
  // `v` in place, so `v` must outlive it.
  static Samples of_nodes(const std::vector<double>& v, const Grid& g, Device d);

  const SampleView& view() const { return view_; }

 private:
  SampleView view_;
  std::vector<double> host_;  // the values, when they live on the CPU
  Buffer<double> buffer_;     // the values, when they live on a GPU
};

}  // namespace gridsolve
