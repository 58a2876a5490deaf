#include "gridsolve/solve/multigrid/multigrid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/field_part.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/exec/red_black_sweep.hpp"
#include "gridsolve/problem/stencil_operator_part.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"
#include "gridsolve/solve/multigrid/block_cycle.hpp"
#include "gridsolve/solve/multigrid/coarsest_solve.hpp"
#include "gridsolve/solve/multigrid/level_bodies.hpp"
#include "gridsolve/solve/multigrid/line_relaxation.hpp"
#include "gridsolve/solve/solve_steps.hpp"

namespace gridsolve {

template <class T>
struct MultigridHierarchy<T>::Level {
  StencilOperator<T> op;  // coarse levels own their operator; level 0 uses the caller's
  Field<T> u;             // the correction on coarse levels
  Field<T> r;             // residual
  Field<T> tmp;           // Jacobi's buffer; Gauss-Seidel's second field (sweeps in pairs)
  Buffer<double> x[3];    // node positions per axis, in fine-grid spacings
  Buffer<double> w[3];    // positional interpolation weights per axis
  multigrid::Coarsening next;
  multigrid::InterpolationWeights<T> weights;  // from the next coarser level to this one
  // On several ranks, the last level split over them: its parts gathered whole on every
  // rank (restriction to the whole level below reads them there), and the rules that
  // fill that whole field's periodic images.
  bool gathers = false;
  Field<T> gathered;
  GhostSides whole_sides;
};

namespace {

using multigrid::GsUpdate;
using multigrid::ResidualBody;
using multigrid::UniformResidualBody;
using multigrid::with_gs_update;

// Coarsening stops at a whole level of at most this many unknowns (its dense inverse is
// made at every setup and update: 64^3 operations are nothing).
constexpr std::int64_t k_direct_unknowns = 64;

// Every loop below that reads neighbours first lets the level's operator refresh the
// periodic images it reads (nothing when no axis is periodic).
template <class T>
void residual_of(const StencilOperator<T>& op, const StencilView<T>& a, Field<T>& u, Field<T>& r,
                 Device d) {
  op.exchange_ghosts(u);
  if (a.uniform && !a.mask) {
    if (a.dims == 3)
      for_each(d, a.active, UniformResidualBody<T, true>{a, u.cview(), r.view()});
    else
      for_each(d, a.active, UniformResidualBody<T, false>{a, u.cview(), r.view()});
    return;
  }
  for_each(d, a.active, ResidualBody<T>{a, u.cview(), r.view()});
}

template <class T>
void gs_half_sweep(const StencilOperator<T>& op, const StencilView<T>& a, Field<T>& u, int colour,
                   Device d) {
  op.exchange_ghosts(u);
  with_gs_update(a,
                 [&](const auto& update) { colour_update(d, a.active, colour, update, u.view()); });
}

// Both colours in one pass, from `in` into `out` (red_black_sweep.hpp).
template <class T>
void gs_sweep_into(const StencilView<T>& a, const Field<T>& in, Field<T>& out, int first,
                   Device d) {
  with_gs_update(a, [&](const auto& update) {
    red_black_sweep(d, a.active, first, update, in.cview(), out.view());
  });
}

template <class T>
void jacobi_sweep(const StencilOperator<T>& op, const StencilView<T>& a, Field<T>& u, Field<T>& tmp,
                  Device d) {
  op.exchange_ghosts(u);
  const FieldView<const T> in = u.cview();
  const FieldView<T> out = tmp.view();
  const T w = T(0.8);  // damping that makes Jacobi a smoother in 2D and 3D
  for_each(d, a.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
    const T old = in(i, j, k);
    out(i, j, k) =
        a.is_free(i, j, k)
            ? old + w * (a.b(i, j, k) + a.neighbours(in, i, j, k) - a.diag(i, j, k) * old) /
                        a.diag(i, j, k)
            : old;
  });
  const FieldView<T> back = u.view();
  const FieldView<const T> t = tmp.cview();
  for_each(d, a.active, [=] GRIDSOLVE_HD(int i, int j, int k) { back(i, j, k) = t(i, j, k); });
}

template <class T>
void zero_unknowns(const StencilView<T>& a, Field<T>& u, Device d) {
  const FieldView<T> v = u.view();
  for_each(d, a.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
    if (a.is_free(i, j, k)) v(i, j, k) = T(0);
  });
}

// Node positions of a level along each axis (x: in finest-grid spacings) as the level's
// buffers, with the positional interpolation weights, the plan c pointed at them, and x
// made the next coarser level's positions.
void place_nodes(multigrid::Coarsening& c, std::array<std::vector<double>, 3>& x,
                 Buffer<double> (&xs)[3], Buffer<double> (&ws)[3], Device d) {
  for (int a = 0; a < 3; ++a) {
    xs[a] = Buffer<double>(d, x[a].size());
    copy_bytes(xs[a].data(), d, x[a].data(), Device::cpu, x[a].size() * sizeof(double));
    c.fine_x[a] = xs[a].data();
    std::vector<double> w(x[a].size(), 1.0);
    for (std::size_t q = 1; q + 1 < x[a].size(); ++q)
      w[q] = (x[a][q + 1] - x[a][q]) / (x[a][q + 1] - x[a][q - 1]);
    ws[a] = Buffer<double>(d, w.size());
    copy_bytes(ws[a].data(), d, w.data(), Device::cpu, w.size() * sizeof(double));
    c.fine_lower_weight[a] = ws[a].data();
    std::vector<double> coarse(std::size_t(c.coarse[a]));
    for (int I = 0; I < c.coarse[a]; ++I)
      coarse[std::size_t(I)] =
          x[a][std::size_t(c.coarsened[a] ? std::min(2 * I, c.fine[a] - 1) : I)];
    x[a] = std::move(coarse);
  }
}

}  // namespace

template <class T>
MultigridHierarchy<T>::MultigridHierarchy(const StencilOperator<T>& op,
                                          const MultigridOptions& options)
    : fine_(&op), options_(options) {
  options_.validate();
  build(op);
}

template <class T>
void MultigridHierarchy<T>::build(const StencilOperator<T>& op) {
  levels_.clear();
  coarse_.reset();
  build_levels(op, op.device);
  // The coarsest level is whole on every rank (a level split over ranks has coarser ones).
  const StencilOperator<T>& coarsest = levels_.size() > 1 ? levels_.back()->op : op;
  if (coarsest.unknowns <= 4096 && !coarsest.parts)
    coarse_ = std::make_unique<multigrid::CoarsestSolve<T>>(coarsest, op.singular);
  // An update's results (each coarse level's unknowns, the coarsest solve's status) are
  // read back together.
  update_results_ = Buffer<std::int64_t>(op.device, levels_.size() + 2);
  line_axes_.assign(levels_.size(), -1);
  if (options_.smoother == Smoother::line)
    for (std::size_t l = 0; l + 1 < levels_.size(); ++l)
      if (op_at(int(l)).grid.node_count() > line_level_nodes(options_))
        line_axes_[l] = multigrid::line_axis(op_at(int(l)));
  find_block_start();
  arguments_ = recorded_arguments();
}

template <class T>
void MultigridHierarchy<T>::build_levels(const StencilOperator<T>& op, Device d) {
  const bool on_ranks = bool(op.parts);
  const bool jacobi = options_.smoother == Smoother::jacobi;
  auto level0 = std::make_unique<Level>();
  if (on_ranks) {
    level0->r = op.make_field();
    if (jacobi) level0->tmp = op.make_field();
  } else {
    level0->r = Field<T>(op.grid, d);
    if (second_field(op)) level0->tmp = Field<T>(op.grid, d);
  }
  std::array<std::vector<double>, 3> x;
  for (int a = 0; a < 3; ++a) {
    x[a].resize(std::size_t(op.grid.n[a]));
    for (int i = 0; i < op.grid.n[a]; ++i) x[a][std::size_t(i)] = i;
  }
  levels_.push_back(std::move(level0));
  Grid g = op.grid;
  const StencilOperator<T>* upper_op = &op;
  // On several ranks the levels stay split while they are large (each coarse node on the
  // rank of the fine node it lies on, Decomposition::coarsened): every rank coarsens its
  // own part, so no rank ever holds a large level whole. The last split level is gathered
  // whole on every rank (at set-up its operator, in each cycle its residual), and every
  // rank makes and runs the coarser levels alike: the correction needs no message back.
  bool split = on_ranks;
  StencilOperator<T> read;  // what a split level's coarsening reads (upper_op's widened or whole)
  while (true) {
    // A whole coarse level this small is the coarsest: its exact solve (CoarsestSolve, three
    // small launches) costs less than the levels below it would, some five launches of a
    // few microseconds each a cycle.
    if (levels_.size() > 1 && !upper_op->parts && upper_op->unknowns <= k_direct_unknowns) break;
    multigrid::Coarsening c =
        multigrid::Coarsening::plan(g.n, g.dims, options_.coarsest_nodes, op.periodic);
    if (!c.any()) break;
    Level& upper = *levels_.back();
    place_nodes(c, x, upper.x, upper.w, d);
    upper.next = c;
    multigrid::LevelPlace below;
    const StencilOperator<T>* reads = upper_op;
    if (split) {
      std::optional<Decomposition> below_parts;
      const std::int64_t below_nodes = std::int64_t(c.coarse[0]) * c.coarse[1] * c.coarse[2];
      if (multigrid::Coarsening::plan(c.coarse, g.dims, options_.coarsest_nodes, op.periodic)
              .any() &&
          below_nodes > split_level_nodes(options_, d))
        below_parts = upper_op->parts->coarsened(c.coarse, c.coarsened);
      if (below_parts) {
        read = with_ghost_layers(*upper_op, 2);
        reads = &read;
        upper.weights = multigrid::interpolation_weights(
            read.view(), c, g, d, multigrid::LevelPlace{upper_op->parts, upper_op->rank});
        below = multigrid::LevelPlace{
            std::make_shared<const Decomposition>(std::move(*below_parts)), upper_op->rank};
      } else {
        read = gather_operator(*upper_op, false, d);  // coarse levels restrict their own sources
        reads = &read;
        upper.gathers = true;
        upper.gathered = Field<T>(g, d);
        upper.whole_sides = upper_op->ghost_sides();
        upper.weights = multigrid::interpolation_weights(read.view(), c, g, d);
        split = false;
      }
    } else {
      upper.weights = multigrid::interpolation_weights(upper_op->view(), c, g, d);
    }
    const StencilView<T> view = reads->view();
    auto level = std::make_unique<Level>();
    level->op = multigrid::coarsen_operator(view, c, upper.weights, g, d, below);
    g = level->op.grid;
    level->u = level->op.make_field();
    level->r = level->op.make_field();
    if (on_ranks ? jacobi : second_field(level->op)) level->tmp = level->op.make_field();
    levels_.push_back(std::move(level));
    upper_op = &levels_.back()->op;
  }
}

template <class T>
void MultigridHierarchy<T>::restrict_down(int l, Field<T>& fine, Field<T>& coarse_rhs) {
  Level& here = *levels_[std::size_t(l)];
  const StencilView<T> coarse = levels_[std::size_t(l) + 1]->op.view();
  const Device d = fine_->device;
  if (here.gathers) {
    gather_parts_everywhere(fine, here.gathered);
    gridsolve::exchange_ghosts(here.gathered,
                               here.whole_sides);  // restriction reads across periodic sides
    multigrid::restrict_residual(here.gathered, here.weights, coarse, coarse_rhs, here.next, d);
    return;
  }
  op_at(l).exchange_ghosts(fine);  // restriction reads across periodic sides and ranks
  multigrid::restrict_residual(fine, here.weights, coarse, coarse_rhs, here.next, d);
}

template <class T>
void MultigridHierarchy<T>::launch(LaunchRecording& recording, const void* key0, const void* key1,
                                   const std::function<void()>& body) {
  if (fine_->parts)
    body();
  else
    recording.run(fine_->device, key0, key1, body);
}

template <class T>
MultigridHierarchy<T>::~MultigridHierarchy() = default;

template <class T>
int MultigridHierarchy<T>::levels() const {
  return int(levels_.size());
}

template <class T>
void MultigridHierarchy<T>::find_block_start() {
  block_start_ = 0;
  const int last = int(levels_.size()) - 1;
  // One rank's whole levels without periodic images to refresh between the steps, smoothed
  // by red-black Gauss-Seidel, down to a coarsest level solved exactly.
  const std::int64_t block_nodes = block_level_nodes(options_);
  if (block_nodes <= 0 || fine_->device != Device::cuda || fine_->parts || fine_->periodic ||
      options_.smoother == Smoother::jacobi || !coarse_ || last < 1)
    return;
  int first = last + 1;
  // (the block smooths by red-black points: a level of line sweeps stays launched)
  while (first > 1 && last - first + 2 <= multigrid::k_block_cycle_levels &&
         levels_[std::size_t(first) - 1]->op.grid.node_count() <= block_nodes &&
         line_axes_[std::size_t(first) - 1] < 0)
    --first;
  if (first <= last) block_start_ = first;
}

template <class T>
multigrid::BlockCycle<T> MultigridHierarchy<T>::block_cycle() const {
  multigrid::BlockCycle<T> c;
  const int last = int(levels_.size()) - 1;
  c.dims = fine_->grid.dims;
  c.count = last - block_start_ + 1;
  c.pre_smooth = options_.pre_smooth;
  c.post_smooth = options_.post_smooth;
  for (int l = block_start_; l <= last; ++l) {
    Level& level = *levels_[std::size_t(l)];
    multigrid::BlockLevel<T>& b = c.level[l - block_start_];
    b.a = level.op.view();
    b.rhs = level.op.rhs.view();
    b.u = level.u.view();
    b.u_storage = level.u.storage();
    b.u_size = level.u.storage_size();
    b.r = level.r.view();
    if (l < last) {
      b.to_coarse = multigrid::transfer_of(level.next, level.weights);
      b.positional = !b.to_coarse.lower[0] && !b.to_coarse.lower[1] && !b.to_coarse.lower[2];
      b.nodes = level.next.fine;
    }
  }
  c.coarsest = coarse_->block_view();
  return c;
}

template <class T>
std::string MultigridHierarchy<T>::describe() const {
  std::string s =
      fmt::format("{}({},{}) {}, {} levels", to_string(options_.cycle), options_.pre_smooth,
                  options_.post_smooth, to_string(options_.smoother), levels_.size());
  const Grid& g = levels_.size() > 1 ? levels_.back()->op.grid : fine_->grid;
  s += g.dims == 3 ? fmt::format(", coarsest {}x{}x{}", g.n[0], g.n[1], g.n[2])
                   : fmt::format(", coarsest {}x{}", g.n[0], g.n[1]);
  int uniform = 0;
  for (std::size_t l = 1; l < levels_.size(); ++l) uniform += levels_[l]->op.uniform ? 1 : 0;
  if (uniform > 0)
    s += fmt::format(", uniform rows on {} of {} coarse levels", uniform, levels_.size() - 1);
  const auto lines =
      std::count_if(line_axes_.begin(), line_axes_.end(), [](int a) { return a >= 0; });
  if (lines > 0) {
    // (named by the finest level that takes lines)
    const int axis =
        *std::find_if(line_axes_.begin(), line_axes_.end(), [](int a) { return a >= 0; });
    s += fmt::format(", lines along {} on {} of {} levels", "xyz"[axis], lines, levels_.size());
  }
  if (block_start_ > 0)
    s += fmt::format(", the coarsest {} in one block", levels_.size() - std::size_t(block_start_));
  if (fine_->parts) {
    int split = 1;
    while (split < int(levels_.size()) && levels_[std::size_t(split)]->op.parts) ++split;
    s += fmt::format(", the finest {} split over {} ranks", split, fine_->parts->ranks());
  }
  return s;
}

template <class T>
const StencilOperator<T>& MultigridHierarchy<T>::op_at(int level) const {
  return level == 0 ? *fine_ : levels_[std::size_t(level)]->op;
}

template <class T>
bool MultigridHierarchy<T>::second_field(const StencilOperator<T>& op) const {
  return options_.smoother == Smoother::jacobi || sweeps_in_pairs(op);
}

template <class T>
bool MultigridHierarchy<T>::sweeps_in_pairs(const StencilOperator<T>& op) const {
  return options_.smoother != Smoother::jacobi &&
         red_black_sweep_fuses(op.device, op.grid.dims, op.periodic != 0 || op.parts != nullptr,
                               sizeof(T));
}

template <class T>
void MultigridHierarchy<T>::smooth(const StencilOperator<T>& op, const StencilView<T>& v,
                                   Field<T>& u, Field<T>& tmp, int sweeps, bool reverse,
                                   int line_axis, Device d) {
  // As a preconditioner the post-smoother runs the colours in reverse, which makes the
  // cycle a symmetric operator, as conjugate gradients need; as a solver the same
  // order converges faster (about 0.05 against 0.11 per V(2,2) cycle in 2D).
  const int first = reverse ? 1 : 0;
  const bool pairs = !tmp.empty() && sweeps_in_pairs(op);
  for (int s = 0; s < sweeps; ++s) {
    if (line_axis >= 0) {
      for (const int colour : std::array<int, 2>{first, 1 - first}) {
        op.exchange_ghosts(u);
        multigrid::line_sweep(v, u, line_axis, colour, d);
      }
      continue;
    }
    if (options_.smoother == Smoother::jacobi) {
      jacobi_sweep(op, v, u, tmp, d);
      continue;
    }
    if (pairs && s + 1 < sweeps) {
      // Two sweeps, each in one pass, through the second field and back: half the traffic
      // of four colour passes (a 2047^2 level on an H200: 26 us a colour pass).
      gs_sweep_into(v, u, tmp, first, d);
      gs_sweep_into(v, tmp, u, first, d);
      ++s;
      continue;
    }
    gs_half_sweep(op, v, u, first, d);
    gs_half_sweep(op, v, u, 1 - first, d);
  }
}

template <class T>
void MultigridHierarchy<T>::cycle_at(int l, const StencilView<T>& view, Field<T>& u, char kind) {
  const Device d = fine_->device;
  const int last = int(levels_.size()) - 1;
  if (kind == 'V' && block_start_ > 0 && l >= block_start_) {
    multigrid::run_block_cycle(block_cycle(), l - block_start_, symmetric_);
    return;
  }
  const StencilOperator<T>& op = op_at(l);
  if (l == last && coarse_) {
    coarse_->solve(view, u);
    return;
  }
  if (l == last) {
    const int half = (options_.coarse_sweeps + 1) / 2;
    for (int s = 0; s < half; ++s) {
      gs_half_sweep(op, view, u, 0, d);
      gs_half_sweep(op, view, u, 1, d);
    }
    for (int s = 0; s < half; ++s) {
      gs_half_sweep(op, view, u, 1, d);
      gs_half_sweep(op, view, u, 0, d);
    }
    return;
  }
  Level& here = *levels_[l];
  Level& below = *levels_[l + 1];
  smooth(op, view, u, here.tmp, options_.pre_smooth, false, line_axes_[std::size_t(l)], d);
  const StencilView<T> coarse = below.op.view();
  if (d == Device::cuda && !fine_->parts && !op.periodic && view.uniform && !view.mask) {
    // The residual formed where the restriction reads it: on a 2047^2 level on an H200 the
    // residual pass (32 us) and the restriction reading it back (30 us) moved the residual
    // field twice. Only for constant rows: per-node rows would be read again for each of
    // the (up to 9) coarse nodes a fine node restricts to, more than the field saves (the
    // flow's pressure levels; a cavity PISO step at 1024^2 was 4% slower). Not on the CPU,
    // where the residual's 2.25 evaluations a fine node cost more than its pass: a 2047^2
    // mg solve on this 2-core machine took 1.20 s against 0.68-0.83 s.
    multigrid::restrict_residual_of(view, u, here.weights, coarse, below.op.rhs, here.next, d);
  } else {
    residual_of(op, view, u, here.r, d);
    restrict_down(l, here.r, below.op.rhs);
  }
  below.u.set_zero();
  if (kind == 'V') {
    cycle_at(l + 1, coarse, below.u, 'V');
  } else if (kind == 'W') {
    cycle_at(l + 1, coarse, below.u, 'W');
    if (l + 1 < last) cycle_at(l + 1, coarse, below.u, 'W');
  } else {  // F: an F-cycle below, then a V-cycle below
    cycle_at(l + 1, coarse, below.u, 'F');
    if (l + 1 < last) cycle_at(l + 1, coarse, below.u, 'V');
  }
  below.op.exchange_ghosts(below.u);  // interpolation reads the coarse images
  multigrid::interpolate_add(below.u, here.weights, view, u, here.next, d);
  smooth(op, view, u, here.tmp, options_.post_smooth, symmetric_, line_axes_[std::size_t(l)], d);
}

template <class T>
void MultigridHierarchy<T>::cycle(Field<T>& u, const Field<T>* b) {
  launch(cycle_recording_, u.storage(), b ? b->storage() : nullptr,
         [&] { cycle_at(0, fine_->view(b), u, to_string(options_.cycle)[0]); });
}

template <class T>
void MultigridHierarchy<T>::precondition(const Field<T>& r, Field<T>& z) {
  launch(precondition_recording_, r.storage(), z.storage(), [&] {
    StencilView<T> v = fine_->view();
    v.rhs = r.cview();
    v.b_const = T(0);
    v.find_shared_layout();
    z.set_zero();
    symmetric_ = true;
    cycle_at(0, v, z, to_string(options_.cycle)[0]);
    symmetric_ = false;
  });
}

template <class T>
void MultigridHierarchy<T>::full_multigrid(Field<T>& u, const Field<T>* b) {
  const Device d = fine_->device;
  const int last = int(levels_.size()) - 1;
  if (last == 0) {
    cycle(u, b);
    return;
  }
  // The right-hand side of the unknowns alone, carried down to every level.
  const StencilView<T> fv = fine_->view(b);
  {
    const FieldView<const T> uv = u.cview();
    const FieldView<T> out = levels_[0]->r.view();
    for_each(d, fv.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
      out(i, j, k) = fv.is_free(i, j, k) ? fv.known_rhs(uv, i, j, k) : T(0);
    });
  }
  restrict_down(0, levels_[0]->r, levels_[1]->op.rhs);
  for (int l = 1; l < last; ++l) restrict_down(l, levels_[l]->op.rhs, levels_[l + 1]->op.rhs);
  levels_[last]->u.set_zero();
  cycle_at(last, levels_[last]->op.view(), levels_[last]->u, 'V');
  for (int l = last - 1; l >= 1; --l) {
    Level& here = *levels_[l];
    const StencilView<T> v = here.op.view();
    here.u.set_zero();
    levels_[l + 1]->op.exchange_ghosts(levels_[l + 1]->u);
    multigrid::interpolate_add(levels_[l + 1]->u, here.weights, v, here.u, here.next, d);
    // cycle_at overwrites the rhs of the levels below, which are done with theirs.
    cycle_at(l, v, here.u, to_string(options_.cycle)[0]);
  }
  zero_unknowns(fv, u, d);
  levels_[1]->op.exchange_ghosts(levels_[1]->u);
  multigrid::interpolate_add(levels_[1]->u, levels_[0]->weights, fv, u, levels_[0]->next, d);
  cycle(u, b);
}

template <class T>
bool MultigridHierarchy<T>::same_structure(const StencilOperator<T>& op) const {
  return op.grid.dims == fine_->grid.dims && op.grid.n == fine_->grid.n &&
         op.device == fine_->device && op.periodic == fine_->periodic &&
         op.active.lo == fine_->active.lo && op.active.hi == fine_->active.hi;
}

template <class T>
void MultigridHierarchy<T>::update(const StencilOperator<T>& op) {
  require(same_structure(op),
          "multigrid update: the operator's grid, sides or device differ from the hierarchy's; "
          "set up again");
  // Everything is remade into the storage it had, and nothing is read back but the
  // results at the end, with one wait: a flow refreshes its pressure's hierarchy every
  // few steps, where 1.6 ms of allocations, copies and waits each time cost a small
  // grid's run some 8%.
  fine_ = &op;
  if (op.parts) {  // the levels are made whole and split again
    cycle_recording_.reset();
    precondition_recording_.reset();
    return build(op);
  }
  const Device d = op.device;
  const std::size_t coarse_levels = levels_.size() - 1;
  std::int64_t* slots = update_results_.data();
  Grid g = op.grid;
  StencilView<T> view = op.view();
  for (std::size_t l = 0; l < coarse_levels; ++l) {
    Level& upper = *levels_[l];
    Level& lower = *levels_[l + 1];
    multigrid::interpolation_weights_into(view, upper.next, g, d, upper.weights);
    multigrid::coarsen_operator_into(view, upper.next, upper.weights, g, d, lower.op, {},
                                     slots + l);
    g = lower.op.grid;
    view = lower.op.view();
  }
  const StencilOperator<T>& coarsest = coarse_levels > 0 ? levels_.back()->op : *fine_;
  const bool in_place = coarse_ && coarse_->in_place();
  if (in_place) coarse_->refresh(coarsest, fine_->singular, slots + coarse_levels);
  std::vector<std::int64_t> results(update_results_.size());
  read_results(d, slots, results.data(), results.size());
  for (std::size_t l = 0; l < coarse_levels; ++l) levels_[l + 1]->op.unknowns = results[l];
  if (in_place)
    coarse_->take_status(results.data() + coarse_levels);
  else if (coarsest.unknowns <= 4096)
    coarse_ = std::make_unique<multigrid::CoarsestSolve<T>>(coarsest, fine_->singular);
  else
    coarse_.reset();
  find_block_start();
  // A recorded cycle holds the arrays' places and the uniform rows' numbers as the last
  // build or update left them (the caller may have moved the fine operator's arrays since):
  // while those are the same it is replayed as it is, reading the new coefficients.
  std::vector<std::uintptr_t> arguments = recorded_arguments();
  if (arguments != arguments_) {
    cycle_recording_.reset();
    precondition_recording_.reset();
    arguments_ = std::move(arguments);
  }
}

template <class T>
std::vector<std::uintptr_t> MultigridHierarchy<T>::recorded_arguments() const {
  std::vector<std::uintptr_t> a;
  auto add_operator = [&](const StencilOperator<T>& op) {
    a.push_back(std::uintptr_t(op.uniform));
    const std::array<T, 8> numbers{op.cp, op.cw, op.ce, op.cs, op.cn, op.cb, op.ct, op.b_const};
    for (const T c : numbers) {
      std::uintptr_t bits = 0;
      std::memcpy(&bits, &c, sizeof(c));
      a.push_back(bits);
    }
    const std::array<const Field<T>*, 8> fields{&op.ap, &op.aw, &op.ae, &op.as,
                                                &op.an, &op.ab, &op.at, &op.rhs};
    for (const Field<T>* f : fields) a.push_back(std::uintptr_t(f->storage()));
    a.push_back(std::uintptr_t(op.mask.storage()));
  };
  add_operator(*fine_);
  for (std::size_t l = 0; l < levels_.size(); ++l) {
    const Level& level = *levels_[l];
    if (l > 0) add_operator(level.op);
    for (const Field<T>& w : level.weights.lower) a.push_back(std::uintptr_t(w.storage()));
  }
  if (coarse_) {
    const std::vector<std::uintptr_t> c = coarse_->recorded_arguments();
    a.insert(a.end(), c.begin(), c.end());
  }
  a.push_back(std::uintptr_t(block_start_));
  return a;
}

template <class T>
void MultigridSolver<T>::setup(const LinearOperator<T>& op) {
  this->op_ = &op;
  hierarchy_ = std::make_unique<MultigridHierarchy<T>>(this->stencil(), options_);
}

template <class T>
void MultigridSolver<T>::update(const LinearOperator<T>& op) {
  const StencilOperator<T>* s = op.stencil();
  if (!hierarchy_ || !s || !hierarchy_->same_structure(*s)) return setup(op);
  this->op_ = &op;
  hierarchy_->update(*s);
}

template <class T>
SolveReport MultigridSolver<T>::run(const Field<T>* b, Field<T>& u, const SolveOptions& options) {
  require(options.rule == StopRule::residual,
          "multigrid stops on the relative residual; use --rule residual");
  const StencilOperator<T>& op = this->stencil();
  SolveReport report;
  report.solver = name();
  ConvergenceMonitor monitor(options, report);
  if (options.check_every == 0) monitor.set_every(1);
  // The residual before the first cycle is read only as the first checked cycle's
  // predecessor when checks are spaced: checked every cycle, that cycle is the first
  // factor's own start, and ||b|| (which the cycles leave alone) is measured in the same
  // pass as the first check's residual: a host wait a solve saved.
  double scale = monitor.every() > 1 ? residual_scale(op, b, u, report) : 0.0;  // 0: not yet
  MultigridHierarchy<T>& mg = *hierarchy_;
  report.kernel = mg.describe();
  double previous = scale > 0 ? op.residual_norm(b, u) / scale : 0.0;
  if (options_.full_multigrid) {
    mg.full_multigrid(u, b);
    report.kernel += ", full multigrid start";
  }
  double last_checked = -1;  // the true residual of u after the last cycle, once checked
  for (int it = 1;; ++it) {
    if (it > 1 || !options_.full_multigrid) mg.cycle(u, b);
    last_checked = -1;
    if (!monitor.due(it)) continue;
    double res = 0;
    if (scale > 0) {
      res = op.residual_norm(b, u) / scale;
    } else {
      const std::array<double, 2> norms = op.residual_and_rhs_norms(b, u);
      report.rhs_norm = norms[1];
      scale = norms[1] > 0 ? norms[1] : 1.0;
      res = norms[0] / scale;
    }
    if (previous > 0 && it > 1) {
      report.cycle_factors.push_back(res / previous);
    }
    previous = res;
    last_checked = res;
    if (monitor.check(it, res)) break;
  }
  report.convergence_factor = mean_reduction(report);
  finish_solve(op, b, u, scale, monitor, options, report, last_checked);
  return report;
}

template class MultigridHierarchy<float>;
template class MultigridHierarchy<double>;
template class MultigridSolver<float>;
template class MultigridSolver<double>;

}  // namespace gridsolve
