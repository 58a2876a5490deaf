// Parallel host evaluation of formulas on boxes of grid points, and their upload.
#include "gridsolve/problem/node_samples.hpp"

#include <omp.h>

#include <optional>
#include <utility>

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"

namespace gridsolve {

Samples Samples::constant(double v) {
  Samples s;
  s.view_.constant = v;
  return s;
}

namespace {

double point(const Grid& g, int axis, int i, int half) {
  if (axis >= g.dims) return 0.0;
  // The same sum as a midpoint written 0.5 * (x_i + x_{i+1}) anywhere else.
  return half ? 0.5 * (g.coord(axis, i) + g.coord(axis, i + 1)) : g.coord(axis, i);
}

SampleView layout(const Box& box) {
  SampleView v;
  v.box = box;
  v.pitch = box.extent(0);
  v.plane = v.pitch * box.extent(1);
  return v;
}

}  // namespace

std::string point_text(const Grid& g, double x, double y, double z) {
  return g.dims == 3 ? fmt::format("({:.6g}, {:.6g}, {:.6g})", x, y, z)
                     : fmt::format("({:.6g}, {:.6g})", x, y);
}

Samples Samples::of(const Expression& e, const Grid& g, const Box& box, std::array<int, 3> half,
                    Device d, const std::string& finite_what) {
  auto refuse = [&](double v, int i, int j, int k) {
    throw Error(fmt::format(
        "{} is {} at {}; every value the problem takes must be finite", finite_what, number_text(v),
        point_text(g, point(g, 0, i, half[0]), point(g, 1, j, half[1]), point(g, 2, k, half[2]))));
  };
  if (e.is_constant() || box.empty()) {
    if (!finite_what.empty() && !box.empty() && !finite_number(e.constant))
      refuse(e.constant, box.lo[0], box.lo[1], box.lo[2]);
    return constant(e.constant);
  }
  Samples s;
  s.view_ = layout(box);
  std::vector<double> host(std::size_t(box.cells()));
  const int threads = box.cells() >= 4096 ? omp_get_max_threads() : 1;
  // A parsed formula may not be shared between threads: each thread gets its own parser,
  // parsed here, one after the other (parsing touches muParser's shared tables).
  std::vector<std::optional<Expression>> own(static_cast<std::size_t>(threads));
  bool parallel = threads > 1;
  if (parallel && !e.concurrent) {
    try {
      for (auto& o : own) {
        o = Expression::parse(e.text);
        if (o->is_constant()) parallel = false;  // not a formula of its own text
      }
    } catch (const Error&) {
      parallel = false;
    }
  }
  const std::int64_t pitch = s.view_.pitch, plane = s.view_.plane;
#pragma omp parallel num_threads(threads) if (parallel)
  {
    const std::size_t t = std::size_t(omp_get_thread_num());
    const Expression& f = parallel && own[t] ? *own[t] : e;
#pragma omp for collapse(2) schedule(static)
    for (int k = box.lo[2]; k <= box.hi[2]; ++k)
      for (int j = box.lo[1]; j <= box.hi[1]; ++j) {
        const double y = point(g, 1, j, half[1]), z = point(g, 2, k, half[2]);
        double* row = host.data() + pitch * (j - box.lo[1]) + plane * (k - box.lo[2]);
        for (int i = box.lo[0]; i <= box.hi[0]; ++i)
          row[i - box.lo[0]] = f(point(g, 0, i, half[0]), y, z);
      }
  }
  if (!finite_what.empty())
    for (std::size_t n = 0; n < host.size(); ++n)
      if (!finite_number(host[n])) {
        const std::int64_t e0 = std::int64_t(n) % pitch,
                           e1 = (std::int64_t(n) / pitch) % box.extent(1),
                           e2 = std::int64_t(n) / plane;
        refuse(host[n], box.lo[0] + int(e0), box.lo[1] + int(e1), box.lo[2] + int(e2));
      }
  if (d == Device::cpu) {
    s.host_ = std::move(host);
    s.view_.values = s.host_.data();
    return s;
  }
  s.buffer_ = Buffer<double>(d, host.size());
  copy_bytes(s.buffer_.data(), d, host.data(), Device::cpu, host.size() * sizeof(double));
  s.view_.values = s.buffer_.data();
  return s;
}

Samples Samples::of_nodes(const std::vector<double>& v, const Grid& g, Device d) {
  Samples s;
  s.view_ = layout(g.nodes());
  if (d == Device::cpu) {
    s.view_.values = v.data();
    return s;
  }
  s.buffer_ = Buffer<double>(d, v.size());
  copy_bytes(s.buffer_.data(), d, v.data(), Device::cpu, v.size() * sizeof(double));
  s.view_.values = s.buffer_.data();
  return s;
}

}  // namespace gridsolve
