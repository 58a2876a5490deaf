// FlowSolver's loops, each a sequence of the steps in their own files: a PISO time step
// (boundaries, momentum, projection) and a SIMPLE / SIMPLEC outer iteration; the initial
// fields; and the checkpoints (every array and scalar a later step reads).
#include "gridsolve/apps/flow/flow_solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "gridsolve/apps/flow/flow_loop_helpers.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/field_part.hpp"

namespace gridsolve::flow {

using namespace detail;

template <class T>
StepReport FlowSolver<T>::piso_step(double dt, bool measure) {
  require(dt > 0 && std::isfinite(dt), fmt::format("time step {} is not positive", dt));
  const int dims = case_.dims;
  StepReport r;
  r.measured = measure;
  const bool bdf2 = case_.time_scheme == TimeScheme::bdf2;
  if (bdf2 && steps_ > 0) {
    for (int c = 0; c < dims; ++c) u_nm1_[std::size_t(c)].copy_from(u_n_[std::size_t(c)]);
    have_previous_ = true;
  }
  for (int c = 0; c < dims; ++c) u_n_[std::size_t(c)].copy_from(u_[std::size_t(c)]);
  const double t_new = time_ + dt;
  ramp_inflow(t_new);
  apply_boundaries(inflow_factor_);
  // BDF2 over steps of unequal length (omega = dt / previous dt): with the constant-step
  // weights the time derivative would be off by 1.5 - 0.5 / omega, which a shortened last
  // step (to land on t_end) turns into a wrong pressure at the final time.
  const bool second_order = bdf2 && have_previous_;
  const double omega = second_order ? dt / dt_previous_ : 1.0;
  const TimeWeights w = second_order
                            ? TimeWeights{(1 + 2 * omega) / ((1 + omega) * dt), (1 + omega) / dt,
                                          omega * omega / ((1 + omega) * dt)}
                            : TimeWeights{1.0 / dt, 1.0 / dt, 0.0};
  if (second_order) extrapolate_convecting_velocity(omega);
  for (int c = 0; c < dims; ++c) assemble_momentum(c, w, 1.0, second_order);
  solve_momentum(case_.momentum_sweeps, second_order);
  project(case_.correctors, false, r, measure);
  time_ = t_new;
  dt_previous_ = dt;
  ++steps_;
  if (measure) r.change = std::max(r.change, velocity_change());
  return r;
}

template <class T>
StepReport FlowSolver<T>::simple_iteration(bool measure) {
  const int dims = case_.dims;
  StepReport r;
  r.measured = measure;
  if (measure)
    for (int c = 0; c < dims; ++c) u_n_[std::size_t(c)].copy_from(u_[std::size_t(c)]);
  apply_boundaries(1.0);
  for (int c = 0; c < dims; ++c) assemble_momentum(c, TimeWeights{}, case_.relax_u);
  solve_momentum(case_.momentum_sweeps);
  project(1, case_.relax_p < 1.0, r, measure);
  ++steps_;
  if (measure) r.change = std::max(r.change, velocity_change());
  return r;
}

template <class T>
void FlowSolver<T>::set_velocity(int comp, const std::function<double(double, double, double)>& f) {
  const auto ext = face_extent(grid_.cells(), comp);
  Field<T> host = make_staggered<T>(grid_.cells(), case_.dims, comp, Device::cpu,
                                    u_[std::size_t(comp)].ghost());
  const FieldView<T> v = host.view();
  const MacGeometry g = grid_.host_geometry();
  for (int k = 0; k < ext[2]; ++k)
    for (int j = 0; j < ext[1]; ++j)
      for (int i = 0; i < ext[0]; ++i) {
        const int I[3] = {i, j, k};
        double x[3];
        for (int a = 0; a < 3; ++a)
          x[a] = a == comp ? g.xf(a, I[a]) : (a < case_.dims ? g.xc(a, I[a]) : 0.0);
        const double value = f(x[0], x[1], x[2]);
        require_usable(
            value, [&] { return fmt::format("the initial {}", "uvw"[comp]); }, x[0], x[1], x[2]);
        v(i, j, k) = T(value);
      }
  if (cell_parts_)
    u_[std::size_t(comp)].copy_from(field_part(host, face_parts_[std::size_t(comp)], rank_));
  else
    u_[std::size_t(comp)].copy_from(host);
  apply_boundaries(inflow_factor_);
}

template <class T>
void FlowSolver<T>::set_pressure(const std::function<double(double, double, double)>& f) {
  const auto& n = grid_.cells();
  Field<T> host = make_staggered<T>(n, case_.dims, -1, Device::cpu);
  const FieldView<T> v = host.view();
  const MacGeometry g = grid_.host_geometry();
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        const double x = g.xc(0, i), y = g.xc(1, j), z = case_.dims == 3 ? g.xc(2, k) : 0.0;
        const double value = f(x, y, z);
        require_usable(
            value, [] { return "the initial p"; }, x, y, z);
        v(i, j, k) = T(value);
      }
  if (cell_parts_)
    p_.copy_from(field_part(host, cell_parts_, rank_));
  else
    p_.copy_from(host);
}

namespace {

// The whole storage of a field (ghosts and padding included), as bytes.
template <class T>
void put_field(Checkpoint& c, const std::string& name, const Field<T>& f) {
  const Field<T> host = f.copy_to(Device::cpu);
  c.put(name, host.storage(), std::size_t(host.storage_size()));
}

// A part of a field on ranks travels whole, in the one-process layout (one ghost layer),
// so that a checkpoint written on any number of ranks restarts on any other: gathered onto
// rank 0 (with the sides' ghosts), which alone puts it.
template <class T>
void put_whole(Checkpoint& c, const std::string& name, const Field<T>& f,
               const std::array<int, 3>& cells, int dims, int axis) {
  if (!f.decomposition()) return put_field(c, name, f);
  const bool root = Communicator::world().is_root();
  Field<T> whole;
  if (root) whole = make_staggered<T>(cells, dims, axis, Device::cpu);
  gather_parts(f, whole, 0, 1);
  if (root) put_field(c, name, whole);
}

template <class T>
void get_field(const Checkpoint& c, const std::string& name, Field<T>& f);

// The reverse, on every rank: the whole field read, this part's values and its one ghost
// layer taken from it (the ghosts between parts are exchanged after).
template <class T>
void get_whole(const Checkpoint& c, const std::string& name, Field<T>& f,
               const std::array<int, 3>& cells, int dims, int axis) {
  if (!f.decomposition()) return get_field(c, name, f);
  Field<T> whole = make_staggered<T>(cells, dims, axis, Device::cpu);
  get_field(c, name, whole);
  Field<T> host = f.copy_to(Device::cpu);
  Box b = f.interior(), w = whole.interior();
  for (int a = 0; a < dims; ++a) b.lo[a] -= 1, b.hi[a] += 1, w.lo[a] -= 1, w.hi[a] += 1;
  b = b.intersect(w);
  const FieldView<const T> from = whole.cview();
  const FieldView<T> to = host.view();
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i) to(i, j, k) = from(i, j, k);
  f.copy_from(host);
}

template <class T>
void get_field(const Checkpoint& c, const std::string& name, Field<T>& f) {
  const std::vector<unsigned char>& b = c.bytes(name);
  const std::size_t want = std::size_t(f.storage_size()) * sizeof(T);
  if (b.size() != want)
    throw Error(
        fmt::format("checkpoint '{}': field '{}' has {} bytes, this grid needs {}; it was "
                    "written for another grid or by another build",
                    c.source, name, b.size(), want));
  Field<T> host = f.copy_to(Device::cpu);
  std::memcpy(host.storage(), b.data(), want);
  f.copy_from(host);
}

}  // namespace

template <class T>
void FlowSolver<T>::save_state(Checkpoint& c) const {
  const auto& n = grid_.cells();
  const int dims = case_.dims;
  for (int q = 0; q < dims; ++q) {
    const std::size_t s = std::size_t(q);
    put_whole(c, fmt::format("u{}", q), u_[s], n, dims, q);
    put_whole(c, fmt::format("u{}_n", q), u_n_[s], n, dims, q);
    put_whole(c, fmt::format("u{}_nm1", q), u_nm1_[s], n, dims, q);
  }
  put_whole(c, "p", p_, n, dims, -1);
  const bool kept = pressure_ready_ && !setup_coefficients_.empty();
  if (pressure_ready_ && !kept)
    throw Error(
        "a checkpoint of this run cannot rebuild its pressure solver: call "
        "keep_pressure_setup(true) before the first step",
        Error::Kind::runtime);
  for (std::size_t a = 0; kept && a < setup_coefficients_.size(); ++a)
    put_whole(c, fmt::format("pressure_setup_{}", a), setup_coefficients_[a], n, dims, -1);
  const double reals[] = {time_, inflow_factor_, pressure_seconds_, dt_previous_};
  c.put("solver_reals", reals, 4);
  const long long ints[] = {steps_,
                            have_previous_ ? 1 : 0,
                            pressure_ready_ ? 1 : 0,
                            pressure_age_,
                            pressure_solves_,
                            pressure_iterations_,
                            predictor_taken_[0],
                            predictor_taken_[1],
                            predictor_taken_[2]};
  c.put("solver_integers", ints, 9);
}

template <class T>
void FlowSolver<T>::restore_state(const Checkpoint& c) {
  const std::vector<double> reals = c.get<double>("solver_reals");
  const std::vector<long long> ints = c.get<long long>("solver_integers");
  // Six integers in checkpoints written before the predictors' counts were kept.
  if (reals.size() != 4 || (ints.size() != 6 && ints.size() != 9))
    throw Error(fmt::format("checkpoint '{}': the solver's scalars are malformed", c.source));
  bool sane = reals[0] >= 0 && reals[3] >= 0 && ints[0] >= 0;
  for (const double r : reals) sane = sane && std::isfinite(r);
  if (!sane)
    throw Error(
        fmt::format("checkpoint '{}': the solver's state holds impossible values (time "
                    "{}, step {})",
                    c.source, reals[0], ints[0]));
  const auto& n = grid_.cells();
  const int dims = case_.dims;
  for (int q = 0; q < dims; ++q) {
    const std::size_t s = std::size_t(q);
    get_whole(c, fmt::format("u{}", q), u_[s], n, dims, q);
    get_whole(c, fmt::format("u{}_n", q), u_n_[s], n, dims, q);
    get_whole(c, fmt::format("u{}_nm1", q), u_nm1_[s], n, dims, q);
    // The second ghost layer between parts (the limited schemes read it).
    for (auto* f : {&u_, &u_n_, &u_nm1_}) share_ghosts((*f)[s]);
  }
  get_whole(c, "p", p_, n, dims, -1);
  share_ghosts(p_);
  time_ = reals[0];
  inflow_factor_ = reals[1];
  pressure_seconds_ = reals[2];
  dt_previous_ = reals[3];
  steps_ = ints[0];
  have_previous_ = ints[1] != 0;
  pressure_ready_ = ints[2] != 0;
  pressure_age_ = int(ints[3]);
  pressure_solves_ = ints[4];
  pressure_iterations_ = ints[5];
  for (std::size_t q = 0; q < 3; ++q)
    predictor_taken_[q] = ints.size() == 9 ? int(std::clamp(ints[6 + q], 0LL, 1LL << 20)) : 0;
  if (pressure_ready_) {
    // Rebuild the hierarchy from the operator it was built from; the next projection
    // assembles the current coefficients over these arrays before any solve reads them.
    const std::vector<Field<T>*> arrays = pressure_arrays();
    for (std::size_t a = 0; a < arrays.size(); ++a)
      get_whole(c, fmt::format("pressure_setup_{}", a), *arrays[a], n, dims, -1);
    setup_pressure(true);
    setup_coefficients_.clear();
    keep_setup_ = true;
    for (Field<T>* f : arrays) setup_coefficients_.push_back(f->copy_to(device_));
  }
}

template void FlowSolver<double>::set_velocity(int,
                                               const std::function<double(double, double, double)>&);
template void FlowSolver<double>::set_pressure(const std::function<double(double, double, double)>&);
template StepReport FlowSolver<double>::piso_step(double, bool);
template StepReport FlowSolver<double>::simple_iteration(bool);
template void FlowSolver<double>::save_state(Checkpoint&) const;
template void FlowSolver<double>::restore_state(const Checkpoint&);

}  // namespace gridsolve::flow
