// WholeOnEveryRank: a solver of a small problem split over ranks that solves it whole on
// every rank: the messages of a split solve (a dozen a cycle, each tens of microseconds)
// cost more than the whole problem's sweeps up to about a million nodes on a GPU.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

// Wraps `inner`. An operator split over ranks with at most `max_nodes` nodes is gathered
// whole onto every rank's device at setup; each solve gathers its coefficients and
// right-hand side again (callers change them in place between updates), and the start,
// runs `inner` on the whole problem on
// every rank alike (no message until the end), and leaves each rank its part of the
// solution, its ghosts facing other ranks refreshed. Any other operator passes through to
// `inner` unchanged.
template <class T>
class WholeOnEveryRank final : public Solver<T> {
 public:
  WholeOnEveryRank(std::unique_ptr<Solver<T>> inner, std::int64_t max_nodes);
  std::string name() const override { return inner_->name(); }
  bool runs_on_ranks() const override { return true; }
  void setup(const LinearOperator<T>& op) override { take(op, true); }
  void update(const LinearOperator<T>& op) override { take(op, false); }
  SolveReport run(const Field<T>* b, Field<T>& u, const SolveOptions& options) override;
  // Whether the operator of the last setup is solved whole on every rank.
  bool whole() const { return whole_; }

 private:
  void take(const LinearOperator<T>& op, bool fresh);
  // The part's coefficients and right-hand side into the whole copy's fields.
  void gather_values();
  std::unique_ptr<Solver<T>> inner_;
  std::int64_t max_nodes_;
  bool whole_ = false;
  StencilOperator<T> whole_op_;  // the inner solver keeps its address
  Field<T> whole_u_, whole_b_;
};

}  // namespace gridsolve
