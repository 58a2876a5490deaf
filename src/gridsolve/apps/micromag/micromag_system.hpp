// MicromagSystem<T>: the magnetization and materials on a device, the effective field
// (the terms of effective_field.hpp), the LLG right-hand side, energies and averages.
// Every loop runs where the fields live (CPU or GPU) through for_each / reduce; the loops
// that read neighbours fill the ghosts of what they read first (exchange_ghosts). Under
// mpirun each rank holds a slab of the mesh (the demag convolution's slabs), its ghosts
// exchanged with the neighbouring ranks, the reductions summed over all ranks.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "gridsolve/apps/micromag/cell_vectors.hpp"
#include "gridsolve/apps/micromag/field_term.hpp"
#include "gridsolve/apps/micromag/micromag_problem.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/transform/demag_convolution.hpp"
#include "gridsolve/transform/demag_on_ranks.hpp"

namespace gridsolve::micromag {

// The demag convolution's periodicity of a mesh.
demag::Periodicity periodicity(const Mesh& mesh);

// What the right-hand side computes from B: the LLG slope, the damping-only slope of
// relax(), or the descent direction m x (m x B) of minimize().
enum class Slope { llg, damping, descent };

// A weighted sum of up to 7 stage slopes, for the Runge-Kutta combinations.
template <class T>
struct StageSum {
  int count = 0;
  const T* k[7][3]{};
  T w[7]{};
  void add(const CellVectors<T>& v, double weight) {
    for (int c = 0; c < 3; ++c) k[count][c] = v.comp(c);
    w[count++] = T(weight);
  }
};

template <class T>
class MicromagSystem {
 public:
  // Under mpirun the system splits over the run's ranks (every rank constructs it alike),
  // unless `whole` asks for all of it on this rank alone.
  MicromagSystem(const MicromagProblem& p, Device d,
                 demag::FftMode mode = demag::FftMode::skip_zeros, bool whole = false);
  ~MicromagSystem();

  Device device() const { return device_; }
  const Mesh& mesh() const { return mesh_; }
  const MicromagProblem& problem() const { return problem_; }
  CellVectors<T>& m() { return m_; }
  const CellVectors<T>& m() const { return m_; }
  std::int64_t magnetic_cells() const { return magnetic_cells_; }
  // The region of every cell (vacuum where Ms = 0), with its ghosts: vacuum beyond the free
  // sides, the opposite side's regions beyond periodic ones.
  const Field<std::uint8_t>& region() const { return region_; }
  // How the ghosts of this mesh's cell fields are filled.
  const GhostSides& ghost_sides() const { return sides_; }

  // A fresh CellVectors shaped as m (this rank's slab on several ranks).
  CellVectors<T> vectors() const;
  // The cells this rank computes: the whole mesh, or its slab on several ranks.
  const Box& cells() const { return cells_; }

  // Sets m from host arrays over the whole mesh (normalized where there is material, zero
  // elsewhere); on several ranks each takes its slab.
  void set_m(const std::array<std::vector<double>, 3>& m);

  // Writes Ms m of `v` into the demag input (combine() does this for the m it makes).
  void load_demag_input(const CellVectors<T>& v);
  // Convolves the demag input (no-op without demag).
  void demag();

  // k = the slope at `v` with external field b (T); the demag input must hold v and
  // demag() must have run. Fills v's ghosts.
  void slope(CellVectors<T>& v, CellVectors<T>& k, std::array<double, 3> b, Slope kind);
  // Some region has a temperature: LLG slopes then add the thermal field of the draw that
  // begin_thermal_step started (each step one draw, held through its stages).
  bool has_temperature() const { return has_temperature_; }
  void begin_thermal_step(double dt) {
    thermal_ = ThermalDraw{problem_.thermal_seed, thermal_steps_++, dt};
  }
  // Heun's two evaluations, each with its combination in the same pass (no loop reads the
  // slope back). The demag input must hold the state the slope is taken at and demag()
  // must have run; the state made is written to the demag input.
  // heun_predict: k = the slope at m(); out = normalize(m() + h k).
  void heun_predict(CellVectors<T>& k, std::array<double, 3> b, Slope kind, double h,
                    CellVectors<T>& out);
  // heun_correct: the slope k' at v (the predictor, not stored); out = normalize(m() + h/2
  // (k + k')); returns h/2 max |k' - k| over the cells (0 unless `estimate`).
  double heun_correct(CellVectors<T>& v, const CellVectors<T>& k, std::array<double, 3> b,
                      Slope kind, double h, CellVectors<T>& out, bool estimate);
  // out = normalize(m0 + h sum) on the magnetic cells, also written to the demag input;
  // returns h max |err| over the cells (0 when err has no terms).
  double combine(const CellVectors<T>& m0, double h, const StageSum<T>& sum, CellVectors<T>& out,
                 const StageSum<T>& err);
  // h max |sum| over the cells.
  double max_norm(double h, const StageSum<T>& sum);
  // sum over cells of a . b.
  double dot(const StageSum<T>& a, const StageSum<T>& b);

  // The following evaluate the demag field of m() themselves.
  Energies energies(std::array<double, 3> b);
  std::array<double, 3> average_m();
  double max_torque(std::array<double, 3> b);  // max |m x B_eff|, T
  // B_eff (T) of the chosen terms (Term flags) at m(), on this device.
  void effective_field(std::array<double, 3> b, unsigned terms, CellVectors<T>& out);

 private:
  Device device_;
  MicromagProblem problem_;
  Mesh mesh_;
  CellVectors<T> m_;
  GhostSides sides_;
  Field<std::uint8_t> region_;
  Buffer<MaterialParams<T>> params_;
  // Where M goes for the demag convolution and H comes from (null pointers without demag).
  demag::PaddedVector<T> demag_input() const;
  demag::PaddedVector<T> demag_output() const;
  bool has_demag() const { return conv_ || split_conv_; }
  // The slope at v (filling v's ghosts), handed cell by cell to `emit` in the same pass.
  template <class Emit>
  double slope_pass(CellVectors<T>& v, std::array<double, 3> b, Slope kind, const Emit& emit);
  // A rank's largest or summed value made the run's (itself on one process).
  double max_over_ranks(double v) const;
  double sum_over_ranks(double v) const;

  std::unique_ptr<demag::DemagConvolution<T>> conv_;       // one process
  std::unique_ptr<demag::DemagOnRanks<T>> split_conv_;      // several ranks
  std::shared_ptr<const Decomposition> parts_;              // several ranks: the slabs
  Box cells_;
  std::int64_t magnetic_cells_ = 0;
  bool has_temperature_ = false;
  bool has_extra_terms_ = false;  // DMI, temperature or a spin torque in some region
  ThermalDraw thermal_;
  std::uint64_t thermal_steps_ = 0;  // draws so far: the next step's number
};

}  // namespace gridsolve::micromag
