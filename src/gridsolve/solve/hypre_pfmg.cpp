// HyprePfmg: our operator's unknowns as a HYPRE Struct system on each rank's box (known
// neighbours moved to the right-hand side, as our relative residual counts them), solved by
// PFMG-preconditioned CG. Besides communicator.cpp, the one file that sees MPI's C API:
// HYPRE's calls take an MPI communicator.
#include "gridsolve/solve/hypre_pfmg.hpp"

#include <fmt/format.h>

#include <type_traits>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"
#include "gridsolve/solve/solve_steps.hpp"

#if GRIDSOLVE_HAVE_HYPRE
#include "gridsolve/exec/mpi_comm.hpp"

#include "gridsolve/solve/hypre_pfmg_pcg.hpp"
#endif

namespace gridsolve {

#if GRIDSOLVE_HAVE_HYPRE

namespace {

template <class T>
class HyprePfmg final : public Solver<T> {
 public:
  std::string name() const override { return "hypre-pfmg"; }
  bool runs_on_ranks() const override { return true; }
  void setup(const LinearOperator<T>& op) override {
    this->op_ = &op;
    (void)this->stencil();  // refuses a matrix-free operator here, naming why
  }

  SolveReport run(const Field<T>* b, Field<T>& u, const SolveOptions& options) override {
    if constexpr (!std::is_same_v<T, double>) {
      (void)b, (void)u, (void)options;
      throw Error("hypre-pfmg solves in double precision (HYPRE's); use --precision double");
    } else {
      return run_double(b, u, options);
    }
  }

 private:
  SolveReport run_double(const Field<double>* b, Field<double>& u, const SolveOptions& options) {
    require(options.rule == StopRule::residual,
            "hypre-pfmg stops on the relative residual; use --rule residual");
    const StencilOperator<double>& op = this->stencil();
    require(op.device == Device::cpu && u.device() == Device::cpu,
            "hypre-pfmg runs on the CPU (HYPRE's structured solvers here are built for it); "
            "use --device cpu");
    require(Communicator::world().uses_mpi(),
            "hypre-pfmg needs MPI started (HYPRE's calls take a communicator): run it under "
            "mpirun, one rank or more (mpirun -np 1 gridsolve ...)");
    require(!op.singular,
            "hypre-pfmg solves problems with a fixed value somewhere (a Dirichlet or Robin side, "
            "or a fixed region); this one has none");
    SolveReport report;
    report.solver = name();
    report.kernel = "HYPRE PFMG-PCG, V(1,1) red-black Gauss-Seidel";
    ConvergenceMonitor monitor(options, report);
    const double scale = residual_scale(op, b, u, report);
    op.exchange_ghosts(u);  // the known values beside other ranks' boxes

    const StencilView<double> a = op.view(b);
    const Box box = op.active;
    const int dims = op.grid.dims, points = dims == 3 ? 7 : 5;
    int lower[3] = {box.lo[0], box.lo[1], box.lo[2]}, upper[3] = {box.hi[0], box.hi[1], box.hi[2]};
    HYPRE_StructGrid grid = nullptr;
    HYPRE_StructGridCreate(run_mpi_comm(), dims, &grid);
    if (!box.empty()) HYPRE_StructGridSetExtents(grid, lower, upper);
    int period[3] = {0, 0, 0};
    for (int axis = 0; axis < dims; ++axis)
      if (a.wraps(axis)) period[axis] = a.global_active.extent(axis);
    HYPRE_StructGridSetPeriodic(grid, period);
    HYPRE_StructGridAssemble(grid);
    HYPRE_StructStencil stencil_shape = nullptr;
    HYPRE_StructStencilCreate(dims, points, &stencil_shape);
    const int offsets[7][3] = {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0},
                               {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
    for (int e = 0; e < points; ++e)
      HYPRE_StructStencilSetElement(stencil_shape, e, const_cast<int*>(offsets[e]));

    // Rows of the box, x fastest: a free node's row with its unknown neighbours (a known
    // one is in the right-hand side); any other node an identity row with zero on the
    // right, decoupled both ways, so the system stays symmetric and its norm ours.
    const std::int64_t count = box.empty() ? 0 : box.cells();
    std::vector<double> values(std::size_t(count) * std::size_t(points), 0.0);
    std::vector<double> rhs(std::size_t(count), 0.0), x(std::size_t(count), 0.0);
    const FieldView<const double> uv = u.cview();
    std::int64_t row = 0;
    for (int k = box.lo[2]; k <= box.hi[2]; ++k)
      for (int j = box.lo[1]; j <= box.hi[1]; ++j)
        for (int i = box.lo[0]; i <= box.hi[0]; ++i, ++row) {
          double* v = &values[std::size_t(row) * std::size_t(points)];
          if (!a.is_free(i, j, k)) {
            v[0] = 1;
            continue;
          }
          v[0] = a.diag(i, j, k);
          for (int f = 0; f < points - 1; ++f) {
            const int ii = i + offsets[f + 1][0], jj = j + offsets[f + 1][1],
                      kk = k + offsets[f + 1][2];
            if (!a.is_known(ii, jj, kk)) v[f + 1] = -a.coefficient(f, i, j, k);
          }
          rhs[std::size_t(row)] = a.known_rhs(uv, i, j, k);
          x[std::size_t(row)] = uv(i, j, k);  // the start: u as it is
        }
    HYPRE_StructMatrix matrix = nullptr;
    HYPRE_StructMatrixCreate(run_mpi_comm(), grid, stencil_shape, &matrix);
    HYPRE_StructMatrixInitialize(matrix);
    int entries[7] = {0, 1, 2, 3, 4, 5, 6};
    if (count > 0)
      HYPRE_StructMatrixSetBoxValues(matrix, lower, upper, points, entries, values.data());
    HYPRE_StructMatrixAssemble(matrix);
    HYPRE_StructVector hb = nullptr, hx = nullptr;
    HYPRE_StructVectorCreate(run_mpi_comm(), grid, &hb);
    HYPRE_StructVectorCreate(run_mpi_comm(), grid, &hx);
    HYPRE_StructVectorInitialize(hb);
    HYPRE_StructVectorInitialize(hx);
    if (count > 0) {
      HYPRE_StructVectorSetBoxValues(hb, lower, upper, rhs.data());
      HYPRE_StructVectorSetBoxValues(hx, lower, upper, x.data());
    }
    HYPRE_StructVectorAssemble(hb);
    HYPRE_StructVectorAssemble(hx);

    int iterations = 0;
    double hypre_residual = 0;
    {
      const HyprePfmgPcg solver(run_mpi_comm(), options.tolerance, options.max_iterations);
      HYPRE_StructPCGSetup(solver.pcg, matrix, hb, hx);
      HYPRE_StructPCGSolve(solver.pcg, matrix, hb, hx);
      HYPRE_StructPCGGetNumIterations(solver.pcg, &iterations);
      HYPRE_StructPCGGetFinalRelativeResidualNorm(solver.pcg, &hypre_residual);
    }
    if (count > 0) HYPRE_StructVectorGetBoxValues(hx, lower, upper, x.data());
    HYPRE_StructVectorDestroy(hx);
    HYPRE_StructVectorDestroy(hb);
    HYPRE_StructMatrixDestroy(matrix);
    HYPRE_StructStencilDestroy(stencil_shape);
    HYPRE_StructGridDestroy(grid);

    const FieldView<double> out = u.view();
    row = 0;
    for (int k = box.lo[2]; k <= box.hi[2]; ++k)
      for (int j = box.lo[1]; j <= box.hi[1]; ++j)
        for (int i = box.lo[0]; i <= box.hi[0]; ++i, ++row)
          if (a.is_free(i, j, k)) out(i, j, k) = x[std::size_t(row)];
    op.exchange_ghosts(u);
    // HYPRE's own stop is on its recursive residual; ours, in finish_solve, on the true one.
    report.iterations = iterations;
    report.history.emplace_back(iterations, hypre_residual);
    report.converged = hypre_residual < options.tolerance;
    report.stop = report.converged ? StopReason::converged : StopReason::iteration_cap;
    report.reason = report.converged
                        ? fmt::format("converged: relative residual {:.3e} < {:.3e} (HYPRE's)",
                                      hypre_residual, options.tolerance)
                        : fmt::format(
                              "not converged: HYPRE stopped at relative residual {:.3e} "
                              "after {} iterations",
                              hypre_residual, iterations);
    finish_solve(op, b, u, scale, monitor, options, report);
    return report;
  }
};

}  // namespace

template <class T>
std::unique_ptr<Solver<T>> make_hypre_pfmg() {
  return std::make_unique<HyprePfmg<T>>();
}
template std::unique_ptr<Solver<float>> make_hypre_pfmg<float>();
template std::unique_ptr<Solver<double>> make_hypre_pfmg<double>();

#endif

}  // namespace gridsolve
