// Geometric multigrid: a level hierarchy, V / W / F cycles, full multigrid, and the
// solver and preconditioner built on them.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gridsolve/exec/launch_recording.hpp"
#include "gridsolve/solve/multigrid/coarsening.hpp"
#include "gridsolve/solve/multigrid/multigrid_options.hpp"
#include "gridsolve/solve/preconditioner.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

namespace multigrid {
template <class T>
struct BlockCycle;
template <class T>
class CoarsestSolve;
}

template <class T>
class MultigridHierarchy {
 public:
  MultigridHierarchy(const StencilOperator<T>& op, const MultigridOptions& options);
  ~MultigridHierarchy();

  // One cycle improving u for A u = b (b null: the operator's own right-hand side).
  void cycle(Field<T>& u, const Field<T>* b = nullptr);
  // One cycle from z = 0 for A z = r (the preconditioner form); z is zero off the
  // unknowns.
  void precondition(const Field<T>& r, Field<T>& z);
  // A full-multigrid initial guess for A u = b.
  void full_multigrid(Field<T>& u, const Field<T>* b = nullptr);
  // New coefficients on the same grid, sides and device: recomputes the transfer weights,
  // every coarse operator and the coarsest inverse into their existing storage (one wait,
  // for the unknowns' counts); keeps the level plan, node positions, work fields and the
  // recorded cycle. Throws Error for another structure.
  void update(const StencilOperator<T>& op);
  bool same_structure(const StencilOperator<T>& op) const;

  int levels() const;
  // The first level cycled inside one block (MultigridOptions::block_nodes); 0: none.
  int block_start() const { return block_start_; }
  std::string describe() const;

 private:
  struct Level;
  // The levels of `op` (on one rank, or the caller's part and its coarser levels on
  // several), and the coarsest level's exact solver.
  void build(const StencilOperator<T>& op);
  // Every level below op, made on device d (level 0's own fields too). On several ranks
  // (op a part) the levels stay split over them while their parts stay large enough, each
  // rank coarsening its own part (each coarse node on the rank of the fine node it lies
  // on); the last split level is gathered whole on every rank and the coarser levels are
  // made and solved there alike, so no correction has to be sent back.
  void build_levels(const StencilOperator<T>& op, Device d);
  // coarse_rhs (level l + 1) = the restriction of fine (level l; its ghosts refreshed
  // here). From the last split level, the fine parts are first gathered whole everywhere.
  void restrict_down(int l, Field<T>& fine, Field<T>& coarse_rhs);
  // A cycle's launches: recorded and replayed on one rank (`recording`); run directly on
  // several, where messages between ranks sit among them.
  void launch(LaunchRecording& recording, const void* key0, const void* key1,
              const std::function<void()>& body);
  // kind: 'V', 'W' or 'F'.
  void cycle_at(int level, const StencilView<T>& view, Field<T>& u, char kind);
  // Level l's operator (level 0: the caller's): what fills its fields' periodic images.
  const StencilOperator<T>& op_at(int level) const;
  // line_axis >= 0: zebra line sweeps along that axis (line_relaxation.hpp).
  void smooth(const StencilOperator<T>& op, const StencilView<T>& v, Field<T>& u, Field<T>& tmp,
              int sweeps, bool reverse, int line_axis, Device d);
  // Gauss-Seidel sweeps of op's level go in pairs, each in one pass (red_black_sweep.hpp),
  // through the level's second field; a level that smooths so, or by Jacobi, has one.
  bool sweeps_in_pairs(const StencilOperator<T>& op) const;
  bool second_field(const StencilOperator<T>& op) const;
  // Sets block_start_ for the levels as built: the coarse end of the hierarchy that one
  // block cycles, where the device, the sides and the smoother allow it.
  void find_block_start();
  // Those levels as the block reads them (their views are taken anew at each recording).
  multigrid::BlockCycle<T> block_cycle() const;
  const StencilOperator<T>* fine_;
  MultigridOptions options_;
  bool symmetric_ = false;  // set while the cycle serves as a preconditioner
  std::vector<std::unique_ptr<Level>> levels_;
  // What a recorded cycle holds by value: the places of every level's arrays, the uniform
  // rows' numbers, the coarsest solve's storage and count, where the block starts.
  std::vector<std::uintptr_t> recorded_arguments() const;
  std::vector<std::uintptr_t> arguments_;                // as the last build or update left them
  std::unique_ptr<multigrid::CoarsestSolve<T>> coarse_;  // exact solve of the coarsest level
  Buffer<std::int64_t> update_results_;
  int block_start_ = 0;
  // Per level, the axis of its line sweeps (Smoother::line, on the levels of more than
  // line_level_nodes nodes), or -1: red-black points.
  std::vector<int> line_axes_;
  // A cycle is a fixed sequence of small launches (a dozen per level): on the GPU it is
  // recorded once per pair of fields and replayed as one graph.
  LaunchRecording cycle_recording_, precondition_recording_;
};

template <class T>
class MultigridSolver final : public Solver<T> {
 public:
  explicit MultigridSolver(MultigridOptions o) : options_(std::move(o)) {}
  std::string name() const override { return "mg"; }
  bool runs_on_ranks() const override { return true; }
  // Builds the level hierarchy: coarse operators, transfer weights, the coarsest
  // level's inverse, and every level's workspace.
  void setup(const LinearOperator<T>& op) override;
  // Same structure: the hierarchy's coefficients refreshed in place (else a new setup).
  void update(const LinearOperator<T>& op) override;

  SolveReport run(const Field<T>* b, Field<T>& u, const SolveOptions& options) override;

 private:
  MultigridOptions options_;
  std::unique_ptr<MultigridHierarchy<T>> hierarchy_;
};

template <class T>
class MultigridPreconditioner final : public Preconditioner<T> {
 public:
  MultigridPreconditioner(const StencilOperator<T>& op, const MultigridOptions& o)
      : hierarchy_(op, o) {}
  void apply(const Field<T>& r, Field<T>& z) override { hierarchy_.precondition(r, z); }
  std::string name() const override { return "multigrid " + hierarchy_.describe(); }
  bool same_structure(const StencilOperator<T>& op) const { return hierarchy_.same_structure(op); }
  void update(const StencilOperator<T>& op) { hierarchy_.update(op); }

 private:
  MultigridHierarchy<T> hierarchy_;
};

}  // namespace gridsolve
