// The flow solver's measurements: the largest divergence, the largest change of a step,
// the CFL time step, and the forces on the bodies; each one reduction on the device.
#include <algorithm>
#include <span>

#include "gridsolve/apps/flow/flow_loop_helpers.hpp"
#include "gridsolve/apps/flow/flow_solver.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve::flow {

using namespace detail;

namespace {

template <class T>
double max_change(Device d, const Box& b, const FieldView<const T>& a,
                  const FieldView<const T>& o) {
  return reduce<double>(
      d, b,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const double x = double(a(i, j, k)) - double(o(i, j, k));
        return x < 0 ? -x : x;
      },
      MaxOp{}, 0.0);
}

}  // namespace

template <class T>
double FlowSolver<T>::max_divergence() const {
  const MacGeometry g = grid_.geometry();
  FieldView<const T> u[3], op[3];
  for (int q = 0; q < case_.dims; ++q)
    u[q] = u_[std::size_t(q)].cview(), op[q] = open_[std::size_t(q)].cview();
  const FieldView<const std::uint8_t> pm = pop_.mask.cview();
  return max_over_ranks(reduce<double>(
      device_, pop_.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        if (pm(i, j, k)) return 0.0;
        const int I[3] = {i, j, k};
        double vol = 1, div = 0;
        for (int q = 0; q < g.dims; ++q) vol *= g.width(q, I[q]);
        for (int q = 0; q < g.dims; ++q) {
          int F[3] = {i, j, k};
          F[q] += 1;
          div += (double(at(op[q], F) * at(u[q], F)) - double(op[q](i, j, k) * u[q](i, j, k))) *
                 vol / g.width(q, I[q]);
        }
        div /= vol;
        return div < 0 ? -div : div;
      },
      MaxOp{}, 0.0));
}

template <class T>
double FlowSolver<T>::velocity_change() const {
  double change = 0;
  for (int c = 0; c < case_.dims; ++c)
    change = std::max(change, max_change(device_, u_[std::size_t(c)].interior(),
                                         u_[std::size_t(c)].cview(), u_n_[std::size_t(c)].cview()));
  return max_over_ranks(change);
}

template <class T>
double FlowSolver<T>::cfl_time_step(double cfl) const {
  const MacGeometry g = grid_.geometry();
  FieldView<const T> u[3];
  for (int q = 0; q < case_.dims; ++q) u[q] = u_[std::size_t(q)].cview();
  const double rate = max_over_ranks(reduce<double>(
      device_, pop_.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const int I[3] = {i, j, k};
        double s = 0;
        for (int q = 0; q < g.dims; ++q) {
          int F[3] = {i, j, k};
          F[q] += 1;
          double v = 0.5 * (double(u[q](i, j, k)) + double(at(u[q], F)));
          s += (v < 0 ? -v : v) / g.width(q, I[q]);
        }
        return s;
      },
      MaxOp{}, 0.0));
  double step = rate > 0 ? cfl / rate : 0.0;
  if (case_.coupling == Coupling::projection && case_.nu > 0) {
    // Explicit diffusion: dt nu sum_a 4 / h_a^2 within the stage's stability interval.
    double k = 0;
    for (int a = 0; a < case_.dims; ++a) {
      const double h = grid_.min_width(a);
      k += 4 / (h * h);
    }
    const double limit = FlowCase::max_diffusion_number / (case_.nu * k);
    step = step > 0 ? std::min(step, limit) : limit;
  }
  return step;
}

// The force of the fluid on the bodies, read off the discrete momentum equations: every
// term the bodies put into them (the wall terms of the faces beside fixed faces, and the
// pressure of the cells where a row of free faces ends at a fixed one). Summed over all
// faces, the interior fluxes cancel, so this equals the momentum balance of any control
// volume around the body: it converges as the flow field does.
template <class T>
Forces FlowSolver<T>::forces() const {
  if (case_.obstacles.empty()) return {};
  const MacGeometry g = grid_.geometry();
  const double nu = case_.nu;
  // Both components' wall terms and the pressure's in one pass (one wait on the host a
  // step): over every face and cell box, each term where its own box holds the index.
  const StencilView<T> a[2] = {mom_[0].view(), mom_[1].view()};
  const FieldView<const T> u[2] = {u_[0].cview(), u_[1].cview()};
  const FieldView<const T> body[2] = {body_[0].cview(), body_[1].cview()};
  FieldView<const std::uint8_t> fm[3];
  Box act[3];
  Box all = pop_.active;
  for (int q = 0; q < std::min(case_.dims, 3); ++q) {
    fm[q] = mom_[std::size_t(q)].mask.cview();
    act[q] = whole_active(mom_[std::size_t(q)]);
    all = all.hull(mom_[std::size_t(q)].active);
  }
  const Box cells = pop_.active;
  const FieldView<const T> p = p_.cview();
  const bool three = case_.dims == 3;  // a face's area spans its cell's z width too
  SumPair f = reduce<SumPair>(
      device_, all,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> SumPair {
        double out[2] = {0, 0};
        for (int q = 0; q < 2; ++q)
          if (a[q].active.contains(i, j, k) && a[q].is_free(i, j, k))
            out[q] += nu * double(body[q](i, j, k)) * double(u[q](i, j, k));
        if (!cells.contains(i, j, k)) return SumPair{out[0], out[1]};
        const int I[3] = {i, j, k};
        for (int q = 0; q < 2; ++q) {
          int H[3] = {i, j, k};
          H[q] += 1;
          const bool lo_fixed = at(fm[q], I) != 0, hi_fixed = at(fm[q], H) != 0;
          const bool lo_free = act[q].contains(i, j, k) && !lo_fixed;
          const bool hi_free = act[q].contains(H[0], H[1], H[2]) && !hi_fixed;
          const double area = g.width(1 - q, I[1 - q]) * (three ? g.width(2, k) : 1.0);
          if (lo_free && hi_fixed) out[q] += double(p(i, j, k)) * area;
          if (lo_fixed && hi_free) out[q] -= double(p(i, j, k)) * area;
        }
        return SumPair{out[0], out[1]};
      },
      SumOp{}, SumPair{});
  f = detail::sum_over_ranks(f, cell_parts_ != nullptr);
  return Forces{f.first, f.second};
}

template double FlowSolver<double>::max_divergence() const;
template double FlowSolver<double>::velocity_change() const;
template double FlowSolver<double>::cfl_time_step(double) const;
template Forces FlowSolver<double>::forces() const;

}  // namespace gridsolve::flow
