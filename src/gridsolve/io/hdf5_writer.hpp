// Field output for ParaView: node-, cell- and face-centred fields, scalar or vector, in HDF5
// described by XDMF 3.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "gridsolve/core/box.hpp"
#include "gridsolve/core/centring.hpp"
#include "gridsolve/core/grid.hpp"
#include "gridsolve/exec/field.hpp"

namespace gridsolve {

class ResultSet;

// One dataset as the writer receives it: values at the indices of `box` (x fastest),
// components interleaved (`ncomp` values per point).
struct DatasetSource {
  std::string name;
  const void* data = nullptr;
  std::size_t count = 0;  // values, components included
  bool single = false;    // float rather than double
  Centring centring = Centring::node();
  Box box;        // the indices the values belong to (empty: the grid's box of `centring`)
  Box whole;      // the dataset's indices when `box` is one rank's share of them (empty: box)
  int ncomp = 1;  // values per point as stored (a 2D vector is stored with 3)
  int field_components = 1;  // as the field has them
};

// Writes the valid values of `f` to a new HDF5 file `h5_path` (replacing it
// atomically) as dataset `dataset`: shaped (ny, nx) in 2D or (nz, ny, nx) in 3D (x
// fastest, as in memory) over the field's box of its centring, with a last axis of
// components for vector fields, in the field's precision. The dataset carries the
// attributes "origin" (where its first value sits) and "spacing", listed x first,
// "centring" ("node", "cell", "face-x", ...) and "components". Device fields are
// copied to the host first.
template <class T>
void write_field_hdf5(const std::string& h5_path, const std::string& dataset, const Field<T>& f,
                      const Grid& g);

// One attribute stored in the HDF5 file an XDMF file points to.
struct XdmfAttribute {
  std::string name;         // the dataset's name in the HDF5 file
  int precision_bytes = 8;  // 4 (float) or 8 (double)
  Centring centring = Centring::node();
  int ncomp = 1;  // values per point as stored: 1 scalar, 3 vector (2D vectors padded), ...
  Box box;        // empty: the grid's whole box of `centring`
};

// Writes (atomically) an XDMF 3 description of `g` whose attributes live in
// `h5_reference` (a path relative to the XDMF file, normally just the .h5 file name, so
// the pair can be moved together). The grid is a 2D/3D CoRectMesh of its nodes; node
// fields are Center="Node" on it, cell fields Center="Cell". A field of any other
// centring (a face-x field: node in x, cell in y and z) or over part of the grid gets
// its own CoRectMesh, made of the points where its values sit, and all grids go into a
// spatial collection. One component is AttributeType="Scalar", 3 "Vector" (a 2D vector
// is written with a zero z component), 6 "Tensor6", 9 "Tensor", others "Matrix".
// Origin and spacing are listed slowest axis first, like the dimensions: that is the
// order XDMF readers expect (checked with VTK's XDMF reader in 3D).
void write_xdmf(const std::string& xdmf_path, const std::string& h5_reference, const Grid& g,
                const std::vector<XdmfAttribute>& attributes);

// The "run_id" string attribute on the root of an HDF5 file a result set wrote; empty
// when the file cannot be read or has none.
std::string hdf5_run_id(const std::string& h5_path);

struct FieldFilePaths {
  std::string h5;
  std::string xdmf;
};

// Collects several named fields on one grid and writes them as one .h5 + one .xdmf:
//   FieldFileWriter w(grid);
//   w.add("u", u).add("error", err).add("velocity", v);
//   w.write("out", "solution");   // out/solution.h5, out/solution.xdmf
class FieldFileWriter {
 public:
  explicit FieldFileWriter(const Grid& g) : grid_(g) {}

  // Copies the field's valid values now, so it may change or go away before write().
  // Names are letters, digits, '_', '-' and '.', unique within the file. The field's
  // centring, components and box are kept with it.
  template <class T>
  FieldFileWriter& add(const std::string& name, const Field<T>& f);

  // Nodes outside the domain (a cut-out): `outside[i + nx (j + ny k)]` nonzero, one
  // entry per grid node. Every field is written as NaN there (node values at those
  // nodes; cell and face values whose nodes are all outside), the fields added before
  // and after this call alike: a value that was never solved for is never written as
  // if it had been.
  // With `over` (a box of nodes), `outside` has one entry per node of that box only: a
  // rank's box and the nodes around it, for fields that are its parts.
  FieldFileWriter& blank_outside(std::vector<std::uint8_t> outside, Box over = {});

  // Creates `dir` if needed and writes dir/basename.h5 and dir/basename.xdmf, each
  // atomically; the .h5 goes first so the .xdmf never points at a missing file. A
  // non-empty `run_id` is recorded in both (as stage() does).
  FieldFilePaths write(const std::string& dir, const std::string& basename,
                       const std::string& run_id = {}) const;

  // The same pair staged in a result set (published by its commit(), with the set's
  // run id in both files: a "run_id" attribute on the HDF5 root, an Information
  // element in the XDMF).
  FieldFilePaths stage(ResultSet& set, const std::string& basename) const;
  // The same pair written by every rank of the run together (parallel HDF5), each
  // contributing its part of every field (fields added as ranks' parts: one .h5 holding
  // the whole grid's datasets, exactly as one process writes them). Every rank calls it;
  // `set` is rank 0's result set, null on the others. A write that fails on any rank ends
  // every rank (exit 1) and leaves the staged file unpublished.
  FieldFilePaths stage_on_ranks(ResultSet* set, const std::string& basename) const;
  // Only the HDF5 file, as `h5_name` (for a set that describes it with its own XDMF);
  // returns its final path.
  std::string stage_hdf5(ResultSet& set, const std::string& h5_name) const;

  std::size_t size() const { return fields_.size(); }

 private:
  using Values = std::variant<std::vector<float>, std::vector<double>>;
  struct Stored {
    std::string name;
    Values values;  // component after component, as Field::to_vector gives them
    Centring centring;
    Box box;
    int ncomp = 1;
  };
  // The values as written (components interleaved, cut-outs blanked) and their sources.
  void collect(std::vector<Values>& buffers, std::vector<DatasetSource>& sources,
               std::vector<XdmfAttribute>& attributes) const;
  Grid grid_;
  std::vector<Stored> fields_;
  bool on_ranks_ = false;  // the fields are ranks' parts
  std::vector<std::uint8_t> outside_;
  Box outside_box_;  // the nodes outside_ covers
};

// Whether this build's HDF5 writes one file from several ranks (FieldFileWriter::
// stage_on_ranks); without it, rank 0 writes the gathered fields.
bool parallel_hdf5_available();

}  // namespace gridsolve
