// OVF 2.0 output (the OOMMF vector-field format mumax3 and OOMMF users read): a
// cell-centred three-component field on a rectangular mesh, binary 4 or 8 bytes.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gridsolve {

struct OvfMesh {
  std::array<int, 3> n{1, 1, 1};          // cells
  std::array<double, 3> cell{1, 1, 1};    // cell size
  std::array<double, 3> origin{0, 0, 0};  // lower corner
  std::string unit = "m";
};

// Writes `components` (three arrays of n[0] n[1] n[2] values, x fastest) to `path`
// atomically, as "Binary 4" for float and "Binary 8" for double, with the format's check
// value first. `title`, `labels` and `units` go to the header; `time` to its Desc line,
// and a non-empty `run_id` (the run's result set) to a second one, "Desc: run_id ...".
template <class T>
void write_ovf2(const std::string& path, const OvfMesh& mesh,
                const std::array<std::vector<T>, 3>& components, const std::string& title,
                const std::array<std::string, 3>& labels, const std::string& unit, double time,
                const std::string& run_id = {});

// Reads back what write_ovf2 writes (binary 4 or 8, or text), as double; for tests and
// for starting from a saved state. Throws Error naming the file on anything else, and on
// a file that is not regular or larger than `limit` bytes (refused before it is read).
std::array<std::vector<double>, 3> read_ovf2(const std::string& path, OvfMesh& mesh,
                                             std::uintmax_t limit = std::uintmax_t(1) << 40);

}  // namespace gridsolve
