// Field output for ParaView: interior nodes in HDF5, described by an XDMF 3 file.
#pragma once
#include <array>
#include <string>
#include <variant>
#include <vector>

#include "gridsolve/core/grid.hpp"
#include "gridsolve/exec/field.hpp"

namespace gridsolve {

// Writes the interior nodes of `f` to a new HDF5 file `h5_path` (replacing it
// atomically) as dataset `dataset`, shaped (ny, nx) in 2D or (nz, ny, nx) in 3D
// (x fastest, as in memory), in the field's precision. The dataset carries the
// attributes "origin" and "spacing", listed x first. Device fields are copied to the
// host first.
template <class T>
void write_field_hdf5(const std::string& h5_path, const std::string& dataset, const Field<T>& f,
                      const Grid& g);

// One node-centred scalar stored in the HDF5 file an XDMF file points to.
struct XdmfAttribute {
  std::string name;         // the dataset's name in the HDF5 file
  int precision_bytes = 8;  // 4 (float) or 8 (double)
};

// Writes (atomically) an XDMF 3 description of `g` as a 2D/3D CoRectMesh whose node
// attributes live in `h5_reference` (a path relative to the XDMF file, normally just
// the .h5 file name, so the pair can be moved together). Origin and spacing are listed
// slowest axis first, like the dimensions: that is the order XDMF readers expect (checked
// with VTK's XDMF reader in 3D). VTK's older XDMF 2 reader shows a 2D mesh in the y-z
// plane rather than x-y; values and spacing are still right.
void write_xdmf(const std::string& xdmf_path, const std::string& h5_reference, const Grid& g,
                const std::vector<XdmfAttribute>& attributes);

struct FieldFilePaths {
  std::string h5;
  std::string xdmf;
};

// Collects several named fields on one grid and writes them as one .h5 + one .xdmf:
//   FieldFileWriter w(grid);
//   w.add("u", u).add("error", err);
//   w.write("out", "solution");   // out/solution.h5, out/solution.xdmf
class FieldFileWriter {
 public:
  explicit FieldFileWriter(const Grid& g) : grid_(g) {}

  // Copies the field's interior now, so it may change or go away before write().
  // Names are letters, digits, '_', '-' and '.', unique within the file.
  template <class T>
  FieldFileWriter& add(const std::string& name, const Field<T>& f);

  // Creates `dir` if needed and writes dir/basename.h5 and dir/basename.xdmf, each
  // atomically; the .h5 goes first so the .xdmf never points at a missing file.
  FieldFilePaths write(const std::string& dir, const std::string& basename) const;

  std::size_t size() const { return fields_.size(); }

 private:
  struct Stored {
    std::string name;
    std::variant<std::vector<float>, std::vector<double>> values;
  };
  Grid grid_;
  std::vector<Stored> fields_;
};

// Cell-centred three-component fields on a box of cells (micromagnetics' magnetization
// and fields): each becomes an HDF5 dataset shaped (nz, ny, nx, 3), components
// interleaved, and an XDMF attribute with Center="Cell" and AttributeType="Vector" on a
// 3D mesh of (nz + 1, ny + 1, nx + 1) nodes. `components` hold x-fastest arrays.
struct CellVectorMesh {
  std::array<int, 3> cells{1, 1, 1};
  std::array<double, 3> spacing{1, 1, 1};
  std::array<double, 3> origin{0, 0, 0};
};
template <class T>
struct NamedCellVectors {
  std::string name;
  const std::array<std::vector<T>, 3>* components = nullptr;
};
template <class T>
FieldFilePaths write_cell_vector_fields(const std::string& dir, const std::string& basename,
                                        const CellVectorMesh& mesh,
                                        const std::vector<NamedCellVectors<T>>& fields);

}  // namespace gridsolve
