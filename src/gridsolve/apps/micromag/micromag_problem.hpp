// The host description of a micromagnetic problem: the mesh of cuboid cells, which region
// each cell belongs to, and the material of each region.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace gridsolve::micromag {

constexpr double mu0 = 1.25663706212e-6;               // T m / A
constexpr double gamma_ll = 1.7595e11;                 // gyromagnetic ratio, rad / (T s)
constexpr double boltzmann = 1.380649e-23;             // J/K
constexpr double bohr_magneton = 9.2740100783e-24;     // J/T
constexpr double elementary_charge = 1.602176634e-19;  // C
constexpr double reduced_planck = 1.054571817e-34;     // J s

struct Mesh {
  std::array<int, 3> n{1, 1, 1};                 // cells per axis
  std::array<double, 3> cell{1e-9, 1e-9, 1e-9};  // cell size, m
  // Periodic axes: exchange wraps across the box's sides there, and the demag tensor sums
  // `images` copies of the box on each side.
  std::array<bool, 3> periodic{false, false, false};
  int images = 0;
  std::int64_t cells() const { return std::int64_t(n[0]) * n[1] * n[2]; }
  double cell_volume() const { return cell[0] * cell[1] * cell[2]; }
};

// Up to 255 material regions (0 .. 254); cells of region 255 hold no material.
constexpr int max_regions = 256;
constexpr std::uint8_t vacuum = 255;

struct Region {
  double ms = 0;     // saturation magnetization, A/m
  double aex = 0;    // exchange stiffness, J/m
  double alpha = 0;  // Gilbert damping
  double ku1 = 0;    // uniaxial anisotropy, J/m^3 (energy -Ku1 (m.u)^2)
  std::array<double, 3> anis_u{0, 0, 1};
  double kc1 = 0;  // cubic anisotropy, J/m^3 (energy Kc1 (a1^2 a2^2 + a2^2 a3^2 + a3^2 a1^2))
  std::array<double, 3> anis_c1{1, 0, 0};
  std::array<double, 3> anis_c2{0, 1, 0};
  double dind = 0;   // interfacial Dzyaloshinskii-Moriya constant, J/m^2 (mumax3's Dind)
  double dbulk = 0;  // bulk Dzyaloshinskii-Moriya constant, J/m^2 (mumax3's Dbulk)
  double temp = 0;   // temperature, K (mumax3's Temp): the thermal field of LLG runs
  double pol = 0;    // spin polarization of a current (mumax3's Pol): Zhang-Li torque
  double xi = 0;     // non-adiabaticity of the Zhang-Li torque (mumax3's xi)
  // Slonczewski torque (mumax3's names): the fixed layer's magnetization (0: no torque),
  // the asymmetry, the secondary term, the free layer's thickness (m; 0: the mesh's).
  std::array<double, 3> fixed_layer{0, 0, 0};
  double lambda = 1;
  double epsilon_prime = 0;
  double free_layer_thickness = 0;
};

struct MicromagProblem {
  Mesh mesh;
  std::vector<std::uint8_t> region;  // per cell, x fastest; vacuum where no material
  std::array<Region, max_regions> regions{};
  bool demag = true;
  std::uint64_t thermal_seed = 0;  // the thermal field's generator key
  std::array<double, 3> current{0, 0, 0};  // J, A/m^2, through the whole magnet

  // A box of cells all of region 0 with the given material.
  static MicromagProblem box(std::array<int, 3> n, std::array<double, 3> cell, const Region& r);
};

// The energies of the terms (J) and their sum.
struct Energies {
  double exchange = 0, anisotropy = 0, zeeman = 0, demag = 0, dmi = 0;
  double total() const { return exchange + anisotropy + zeeman + demag + dmi; }
};

}  // namespace gridsolve::micromag
