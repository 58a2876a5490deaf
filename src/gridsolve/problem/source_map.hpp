// SourceMap: an assembled problem's right-hand side for new node sources, without
// assembling again. b is linear in the sources: each free node's b takes its f times the
// node's dual-cell volume, plus the boundary data's part. The map holds both parts, taken
// from the assembly itself, and writes b for a dense array of node values in one pass
// over the grid, on the device where the array lies. How one operator serves many sources
// (the Python module's Solver; GPU arrays read in place).
#pragma once
#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/problem_spec.hpp"
#include "gridsolve/problem/stencil_operator.hpp"

namespace gridsolve {

template <class T>
class SourceMap {
 public:
  SourceMap() = default;
  // The map of spec's right-hand side (spec's own f is not read), on `device`: a cartesian
  // problem on one rank.
  SourceMap(const ProblemSpec& spec, Device device);

  // b at every free node for the node values f (x fastest, one per node of the grid, in
  // the memory of op's device; op assembled from the same spec), a singular operator's net
  // source removed as assemble removes it. Returns the share removed (0 unless op is
  // singular). A source that is not finite at a free node is refused, naming how many.
  double write(const StencilOperator<T>& op, const T* f, Field<T>& b) const;

  // A field shaped as the operator's right-hand side, for write to fill.
  Field<T> make_rhs() const;

 private:
  Field<T> data_, weight_;  // b = data_ + weight_ f
};

}  // namespace gridsolve
