// Tests of the io/ layer: HDF5 + XDMF fields, JSON summaries, CSV histories, atomic files.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/hdf5_writer.hpp"
#include "gridsolve/io/history_csv.hpp"
#include "gridsolve/io/result_set.hpp"
#include "gridsolve/io/summary_json.hpp"

namespace fs = std::filesystem;
using namespace gridsolve;

namespace {

// A fresh folder per test, removed afterwards, so tests never see each other's files.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::random_device rd;
    path_ = fs::temp_directory_path() / (std::string("gridsolve_io_") + info->test_suite_name() +
                                         "_" + info->name() + "_" + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  std::string operator/(const std::string& leaf) const { return (path_ / leaf).string(); }

 private:
  fs::path path_;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> leftover_temporaries(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp-") != std::string::npos)
      found.push_back(e.path().string());
  return found;
}

Grid test_grid(int dims) {
  // Unequal counts, spacings and origins so that swapped axes cannot pass.
  return dims == 2 ? Grid::box(2, {7, 5, 1}, {-1.0, 0.5, 0}, {2.0, 1.5, 0})
                   : Grid::box(3, {6, 5, 4}, {-1.0, 0.5, 2.0}, {2.0, 1.5, 5.0});
}

template <class T>
Field<T> random_field(const Grid& g, unsigned seed) {
  Field<T> f(g, Device::cpu);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> mag(0.25, 4.0);
  const FieldView<T> v = f.view();
  for (int k = 0; k < g.n[2]; ++k)
    for (int j = 0; j < g.n[1]; ++j)
      for (int i = 0; i < g.n[0]; ++i) v(i, j, k) = T(((i + j + k) % 2 ? -1 : 1) * mag(rng));
  return f;
}

struct Hdf5Dataset {
  std::vector<hsize_t> shape;
  std::size_t element_bytes = 0;
  H5T_class_t type_class = H5T_NO_CLASS;
  std::vector<double> origin, spacing;
};

std::vector<double> read_attribute(hid_t dset, const char* name) {
  const hid_t attr = H5Aopen(dset, name, H5P_DEFAULT);
  EXPECT_GE(attr, 0) << "attribute " << name;
  if (attr < 0) return {};
  const hid_t space = H5Aget_space(attr);
  std::vector<double> v(std::size_t(H5Sget_simple_extent_npoints(space)));
  EXPECT_GE(H5Aread(attr, H5T_NATIVE_DOUBLE, v.data()), 0);
  H5Sclose(space);
  H5Aclose(attr);
  return v;
}

// Reads a dataset back through the HDF5 C API, converting to T on the way.
template <class T>
std::vector<T> read_dataset(const std::string& file, const std::string& name, Hdf5Dataset& info) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(f, 0) << file;
  if (f < 0) return {};
  const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  EXPECT_GE(d, 0) << name;
  if (d < 0) {
    H5Fclose(f);
    return {};
  }
  const hid_t space = H5Dget_space(d);
  info.shape.assign(std::size_t(H5Sget_simple_extent_ndims(space)), 0);
  H5Sget_simple_extent_dims(space, info.shape.data(), nullptr);
  const hid_t type = H5Dget_type(d);
  info.element_bytes = H5Tget_size(type);
  info.type_class = H5Tget_class(type);
  std::vector<T> values(std::size_t(H5Sget_simple_extent_npoints(space)));
  EXPECT_GE(H5Dread(d, sizeof(T) == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                    H5P_DEFAULT, values.data()),
            0);
  info.origin = read_attribute(d, "origin");
  info.spacing = read_attribute(d, "spacing");
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return values;
}

template <class T>
class IoHdf5 : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(IoHdf5, Precisions);

}  // namespace

TYPED_TEST(IoHdf5, RoundTripKeepsValuesShapeAndGeometry) {
  using T = TypeParam;
  for (int dims : {2, 3}) {
    SCOPED_TRACE(dims);
    ScratchDir dir;
    const Grid g = test_grid(dims);
    const Field<T> f = random_field<T>(g, 17u + unsigned(dims));
    const std::string file = dir / "field.h5";
    write_field_hdf5(file, "u", f, g);

    Hdf5Dataset info;
    const std::vector<T> back = read_dataset<T>(file, "u", info);
    EXPECT_EQ(back, f.to_vector());
    std::vector<hsize_t> shape;
    for (int a = dims - 1; a >= 0; --a) shape.push_back(hsize_t(g.n[a]));
    EXPECT_EQ(info.shape, shape);
    EXPECT_EQ(info.type_class, H5T_FLOAT);
    EXPECT_EQ(info.element_bytes, sizeof(T));
    ASSERT_EQ(info.origin.size(), std::size_t(dims));
    ASSERT_EQ(info.spacing.size(), std::size_t(dims));
    for (int a = 0; a < dims; ++a) {
      EXPECT_DOUBLE_EQ(info.origin[a], g.origin[a]);
      EXPECT_DOUBLE_EQ(info.spacing[a], g.spacing[a]);
    }
    EXPECT_TRUE(leftover_temporaries(dir.path()).empty());
  }
}

TEST(IoHdf5Writer, SeveralFieldsInOneFileWithXdmf) {
  for (int dims : {2, 3}) {
    SCOPED_TRACE(dims);
    ScratchDir dir;
    const Grid g = test_grid(dims);
    const Field<double> u = random_field<double>(g, 3);
    const Field<float> err = random_field<float>(g, 4);
    FieldFileWriter w(g);
    w.add("u", u).add("error", err);
    const std::string out = dir / "nested/out";  // missing folders are created
    const FieldFilePaths paths = w.write(out, "solution");
    EXPECT_EQ(paths.h5, out + "/solution.h5");
    EXPECT_EQ(paths.xdmf, out + "/solution.xdmf");

    Hdf5Dataset info_u, info_e;
    EXPECT_EQ(read_dataset<double>(paths.h5, "u", info_u), u.to_vector());
    EXPECT_EQ(read_dataset<float>(paths.h5, "error", info_e), err.to_vector());
    EXPECT_EQ(info_u.element_bytes, 8u);
    EXPECT_EQ(info_e.element_bytes, 4u);

    const std::string x = read_text(paths.xdmf);
    const std::string dims_text = dims == 2 ? "5 7" : "4 5 6";
    EXPECT_NE(x.find("Version=\"3.0\""), std::string::npos) << x;
    EXPECT_NE(x.find(dims == 2 ? "TopologyType=\"2DCoRectMesh\" Dimensions=\"5 7\""
                               : "TopologyType=\"3DCoRectMesh\" Dimensions=\"4 5 6\""),
              std::string::npos)
        << x;
    EXPECT_NE(x.find(dims == 2 ? "GeometryType=\"ORIGIN_DXDY\"" : "GeometryType=\"ORIGIN_DXDYDZ\""),
              std::string::npos)
        << x;
    // Origin and spacing are listed slowest axis first, like the dimensions.
    EXPECT_NE(x.find(dims == 2 ? ">0.5 -1</DataItem>" : ">2 0.5 -1</DataItem>"), std::string::npos)
        << x;
    EXPECT_NE(x.find(dims == 2 ? ">0.25 0.5</DataItem>" : ">1 0.25 0.6</DataItem>"),
              std::string::npos)
        << x;
    EXPECT_NE(x.find("<Attribute Name=\"u\" AttributeType=\"Scalar\" Center=\"Node\">"),
              std::string::npos);
    EXPECT_NE(x.find("Dimensions=\"" + dims_text +
                     "\" NumberType=\"Float\" Precision=\"8\" "
                     "Format=\"HDF\">solution.h5:/u<"),
              std::string::npos)
        << x;
    EXPECT_NE(x.find("Precision=\"4\" Format=\"HDF\">solution.h5:/error<"), std::string::npos) << x;
    EXPECT_TRUE(leftover_temporaries(out).empty());
  }
}

TEST(IoHdf5Writer, RewritingReplacesTheFile) {
  ScratchDir dir;
  const Grid g = test_grid(2);
  write_field_hdf5(dir / "f.h5", "u", random_field<double>(g, 1), g);
  const Field<double> second = random_field<double>(g, 2);
  write_field_hdf5(dir / "f.h5", "v", second, g);
  Hdf5Dataset info;
  EXPECT_EQ(read_dataset<double>(dir / "f.h5", "v", info), second.to_vector());
  EXPECT_TRUE(leftover_temporaries(dir.path()).empty());
}

TEST(IoHdf5Writer, RejectsMismatchedGridsBadNamesAndDuplicates) {
  ScratchDir dir;
  const Grid g = test_grid(2);
  const Field<double> f = random_field<double>(g, 5);
  EXPECT_THROW(write_field_hdf5(dir / "f.h5", "u", f, test_grid(3)), Error);
  EXPECT_THROW(write_field_hdf5(dir / "f.h5", "a/b", f, g), Error);
  EXPECT_THROW(write_field_hdf5(dir / "f.h5", "", f, g), Error);
  FieldFileWriter w(g);
  w.add("u", f);
  EXPECT_THROW(w.add("u", f), Error);
  EXPECT_THROW(w.write(dir.path().string(), "a/b"), Error);
  EXPECT_FALSE(fs::exists(dir / "f.h5"));
  EXPECT_TRUE(leftover_temporaries(dir.path()).empty());
}

TEST(IoAtomicFile, ReplacesContentsAndLeavesNoTemporaries) {
  ScratchDir dir;
  const std::string path = dir / "a.txt";
  write_file_atomically(path, "first version, longer than the second\n");
  write_file_atomically(path, "second\n");
  EXPECT_EQ(read_text(path), "second\n");
  EXPECT_TRUE(leftover_temporaries(dir.path()).empty());
}

TEST(IoAtomicFile, AbandonedOutputIsRemoved) {
  ScratchDir dir;
  std::string temp;
  {
    AtomicOutput out(dir / "never.txt");
    temp = out.temp_path();
    EXPECT_TRUE(fs::exists(temp));
    EXPECT_EQ(fs::path(temp).parent_path(), dir.path());
  }
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_FALSE(fs::exists(dir / "never.txt"));
}

TEST(IoAtomicFile, UnusableDirectoriesNameThePath) {
  ScratchDir dir;
  write_file_atomically(dir / "plain_file", "x");
  const std::string bad = dir / "plain_file/sub";
  try {
    create_output_directory(bad);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::invalid_input);
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
  try {
    create_output_directory(dir / "plain_file");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a directory"), std::string::npos) << e.what();
  }
  try {
    write_file_atomically(dir / "missing/x.txt", "x");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir / "missing/x.txt"), std::string::npos) << e.what();
  }
  create_output_directory(dir / "new/deeper");
  EXPECT_TRUE(fs::is_directory(dir / "new/deeper"));
}

TEST(IoSummaryJson, NonFiniteNumbersBecomeNull) {
  ScratchDir dir;
  SolveReport r;
  r.solver = "sor";
  r.kernel = "generic";
  r.converged = false;
  r.reason = "diverged: the residual became NaN at iteration 40";
  r.iterations = 40;
  r.relative_residual = std::numeric_limits<double>::quiet_NaN();
  r.last_update = std::numeric_limits<double>::infinity();
  r.seconds = 0.5;
  r.omega = 1.9;
  nlohmann::json j = to_json(r);
  j["extra"] = std::nan("");  // set directly: the writer must cope too
  const std::string path = dir / "summary.json";
  write_json_file(path, j);

  const std::string text = read_text(path);
  // No bare NaN / Infinity tokens as values (the reason text may say "NaN").
  EXPECT_FALSE(std::regex_search(text, std::regex(":\\s*-?(nan|inf)", std::regex::icase))) << text;
  EXPECT_EQ(text.back(), '\n');
  const nlohmann::json back = nlohmann::json::parse(text);  // throws if invalid JSON
  EXPECT_TRUE(back["relative_residual"].is_null());
  EXPECT_TRUE(back["last_update"].is_null());
  EXPECT_TRUE(back["extra"].is_null());
  EXPECT_EQ(back["solver"], "sor");
  EXPECT_EQ(back["kernel"], "generic");
  EXPECT_EQ(back["converged"], false);
  EXPECT_EQ(back["reason"], r.reason);
  EXPECT_EQ(back["iterations"], 40);
  EXPECT_DOUBLE_EQ(back["seconds"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(back["omega"].get<double>(), 1.9);
  EXPECT_TRUE(leftover_temporaries(dir.path()).empty());
}

TEST(IoHistoryCsv, HeaderNamesTheWatchedQuantity) {
  ScratchDir dir;
  SolveReport r;
  r.history = {{10, 0.5}, {20, 1.25e-3}, {30, 0.1}};
  const std::string path = dir / "history.csv";
  write_history_csv(path, r, StopRule::residual);
  EXPECT_EQ(read_text(path), "iteration,relative_residual\n10,0.5\n20,0.00125\n30,0.1\n");
  write_history_csv(path, r, StopRule::update);
  EXPECT_EQ(read_text(path).substr(0, 21), "iteration,max_update\n");

  // Values read back exactly.
  r.history = {{1, 0.1 + 0.2}};
  const std::string text = history_csv(r, StopRule::residual);
  const double back = std::stod(text.substr(text.find("1,") + 2));
  EXPECT_EQ(back, 0.1 + 0.2);

  r.history.clear();
  EXPECT_EQ(history_csv(r, StopRule::update), "iteration,max_update\n");
}

TEST(IoHistoryCsv, RunIdColumnOnEveryRow) {
  EXPECT_EQ(with_run_id_column("t,c_d\n0.5,1.25\n1,2\n", "R-1"),
            "t,c_d,run_id\n0.5,1.25,R-1\n1,2,R-1\n");
  // A header alone, a last line without its newline, empty lines dropped.
  EXPECT_EQ(with_run_id_column("step,dt\n", "R"), "step,dt,run_id\n");
  EXPECT_EQ(with_run_id_column("a\n\n1", "R"), "a,run_id\n1,R\n");
}
