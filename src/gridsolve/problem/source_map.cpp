// SourceMap: the two parts of b, from two assemblies (sources 0 and 1 everywhere), and
// the pass that combines them with new sources (built by the CUDA compiler: its loop
// bodies are device lambdas).
#include "gridsolve/problem/source_map.hpp"

#include <fmt/format.h>

#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/node_samples.hpp"

namespace gridsolve {

namespace {

// a -= b over a's valid box (a constructor cannot hold a device lambda).
template <class T>
void subtract(Field<T>& a, const Field<T>& b) {
  const FieldView<T> av = a.view();
  const FieldView<const T> bv = b.cview();
  for_each(a.device(), a.interior(),
           [=] GRIDSOLVE_HD(int i, int j, int k) { av(i, j, k) -= bv(i, j, k); });
}

}  // namespace

template <class T>
SourceMap<T>::SourceMap(const ProblemSpec& spec, Device device) {
  ProblemSpec with = spec;
  const std::size_t nodes = std::size_t(spec.grid.node_count());
  with.f_nodes.assign(nodes, 0.0);
  data_ = assembled_rhs<T>(with, device);
  with.f_nodes.assign(nodes, 1.0);
  weight_ = assembled_rhs<T>(with, device);
  subtract(weight_, data_);
}

template <class T>
Field<T> SourceMap<T>::make_rhs() const {
  Field<T> b = data_.copy_to(data_.device());
  b.set_zero();
  return b;
}

template <class T>
double SourceMap<T>::write(const StencilOperator<T>& op, const T* f, Field<T>& b) const {
  require(b.interior().lo == weight_.interior().lo && b.interior().hi == weight_.interior().hi &&
              b.device() == weight_.device(),
          "SourceMap::write: b must be shaped as the map's right-hand side (make_rhs)");
  const Box nodes = weight_.interior();
  const std::int64_t nx = nodes.extent(0), ny = nodes.extent(1);
  const FieldView<const T> w = weight_.cview(), b0 = data_.cview();
  const FieldView<T> out = b.view();
  // One pass: b written, and the free nodes whose source is not finite counted (a node
  // that is not free has weight 0 and never reads its f: sources may be singular there).
  const std::int64_t bad = reduce<std::int64_t>(
      weight_.device(), nodes,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> std::int64_t {
        const T wp = w(i, j, k);
        T value = b0(i, j, k);
        std::int64_t wrong = 0;
        if (wp != T(0)) {
          const T fp =
              f[(i - nodes.lo[0]) + nx * ((j - nodes.lo[1]) + ny * std::int64_t(k - nodes.lo[2]))];
          wrong = finite_number(double(fp)) ? 0 : 1;
          value += wp * fp;
        }
        out(i, j, k) = value;
        return wrong;
      },
      SumOp{}, std::int64_t(0));
  require(bad == 0, fmt::format("f is not finite (NaN or infinite) at {} node{} of the domain", bad,
                                bad == 1 ? "" : "s"));
  return op.singular ? remove_net_source(op, b) : 0.0;
}

template class SourceMap<float>;
template class SourceMap<double>;

}  // namespace gridsolve
