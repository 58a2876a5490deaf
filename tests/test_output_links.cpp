// Symbolic links in output paths, one rule for every writer: the link is kept and the file
// it points to replaced; a dangling link's file is created; a loop or a missing folder is
// refused (exit 2).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/grid.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/hdf5_writer.hpp"
#include "gridsolve/io/result_set.hpp"
#include "output_test_support.hpp"

using namespace gridsolve;
using namespace gridsolve::output_testing;

namespace {

// D/summary.json -> ../elsewhere/summary.json, a regular file holding `{}`.
struct LinkedSummary {
  explicit LinkedSummary(const Scratch& dir) : out(dir / "D"), target(dir / "elsewhere/kept.json") {
    fs::create_directories(out);
    fs::create_directories(dir / "elsewhere");
    std::ofstream(target) << "{}\n";
    fs::create_symlink("../elsewhere/kept.json", out + "/summary.json");
  }
  std::string out, target;
};

std::string run_id_of(const std::string& json_path) {
  const nlohmann::json j = nlohmann::json::parse(read_text(json_path));
  return j.value("run_id", "");
}

}  // namespace

TEST(OutputLinks, ResultSetManifestLinkIsKeptAndItsTargetReplaced) {
  Scratch dir;
  const LinkedSummary s(dir);
  const Outcome o = shell("$GS poisson --n 17 --device cpu -q --out " + s.out);
  ASSERT_EQ(o.code, 0) << o.output;
  ASSERT_TRUE(fs::is_symlink(s.out + "/summary.json"));
  EXPECT_EQ(fs::read_symlink(s.out + "/summary.json"), "../elsewhere/kept.json");
  const std::string id = run_id_of(s.target);
  EXPECT_FALSE(id.empty());
  EXPECT_EQ(hdf5_run_id(s.out + "/solution.h5"), id);
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

TEST(OutputLinks, SolveCommandKeepsTheLinkToo) {
  Scratch dir;
  const LinkedSummary s(dir);
  // solution.h5 through a link as well: HDF5 files follow the same rule.
  fs::create_symlink("../elsewhere/solution.h5", s.out + "/solution.h5");
  const Outcome o = shell("$GS solve " + std::string(GRIDSOLVE_SOURCE_DIR) +
                          "/examples/poisson_periodic_channel.toml --device cpu -q --out " + s.out);
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_TRUE(fs::is_symlink(s.out + "/summary.json"));
  EXPECT_TRUE(fs::is_symlink(s.out + "/solution.h5"));
  const std::string id = run_id_of(s.target);
  EXPECT_FALSE(id.empty());
  EXPECT_EQ(hdf5_run_id(dir / "elsewhere/solution.h5"), id);
}

TEST(OutputLinks, FlowAndMicromagKeepTheLink) {
  Scratch dir;
  const LinkedSummary s(dir);
  const Outcome o = shell(
      "$GS cavity --re 100 --n 16 --max-iter 20 --device cpu -q --no-plots "
      "--out " +
      s.out);
  ASSERT_TRUE(o.code == 0 || o.code == 3) << o.output;
  EXPECT_TRUE(fs::is_symlink(s.out + "/summary.json"));
  EXPECT_EQ(run_id_of(s.target), hdf5_run_id(s.out + "/fields.h5"));
  EXPECT_FALSE(run_id_of(s.target).empty());
}

TEST(OutputLinks, DanglingLinkCreatesTheFileItPointsTo) {
  Scratch dir;
  std::ofstream(dir / "keys.txt") << "3\n1\n2\n";
  fs::create_symlink("sorted/keys.txt", dir / "out.txt");
  fs::create_directories(dir / "sorted");
  const Outcome o = shell("cd " + dir.path().string() + " && $GS sort keys.txt -o out.txt");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_TRUE(fs::is_symlink(dir / "out.txt"));
  EXPECT_EQ(read_text(dir / "sorted/keys.txt"), read_text(dir / "out.txt"));
  EXPECT_FALSE(read_text(dir / "out.txt").empty());

  // A dangling summary.json: the new summary lands where it points.
  fs::create_directories(dir / "D");
  fs::create_symlink("../archive.json", dir / "D/summary.json");
  const Outcome p = shell("$GS poisson --n 9 --device cpu -q --out " + (dir / "D"));
  ASSERT_EQ(p.code, 0) << p.output;
  EXPECT_TRUE(fs::is_symlink(dir / "D/summary.json"));
  EXPECT_FALSE(run_id_of(dir / "archive.json").empty());
}

TEST(OutputLinks, DanglingLinkIntoAMissingFolderAndLoopsAreRefused) {
  Scratch dir;
  std::ofstream(dir / "keys.txt") << "3\n1\n2\n";
  fs::create_symlink("nowhere/keys.txt", dir / "out.txt");
  const Outcome o = shell("cd " + dir.path().string() + " && $GS sort keys.txt -o out.txt");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "'out.txt' (a symbolic link to 'nowhere/keys.txt')")) << o.output;
  EXPECT_TRUE(fs::is_symlink(dir / "out.txt"));
  fs::create_symlink("loop_b", dir / "loop_a");
  fs::create_symlink("loop_a", dir / "loop_b");
  const Outcome l = shell("cd " + dir.path().string() + " && $GS sort keys.txt -o loop_a");
  EXPECT_EQ(l.code, 2) << l.output;
  EXPECT_TRUE(contains(l.output, "symbolic links")) << l.output;
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

TEST(OutputLinks, ChainsOfRelativeLinksAreFollowedToTheirEnd) {
  Scratch dir;
  fs::create_directories(dir / "a/b");
  std::ofstream(dir / "a/b/real.txt") << "old\n";
  fs::create_symlink("b/real.txt", dir / "a/second");  // relative to a/
  fs::create_symlink("a/second", dir / "first");
  EXPECT_EQ(output_file_of(dir / "first"), dir / "a/b/real.txt");
  write_file_atomically(dir / "first", "new\n");
  EXPECT_TRUE(fs::is_symlink(dir / "first"));
  EXPECT_TRUE(fs::is_symlink(dir / "a/second"));
  EXPECT_EQ(read_text(dir / "a/b/real.txt"), "new\n");
  // Removing through the link removes the file, not the link.
  remove_output_file(dir / "first");
  EXPECT_TRUE(fs::is_symlink(dir / "first"));
  EXPECT_FALSE(fs::exists(dir / "a/b/real.txt"));
  remove_output_file(dir / "first");  // already gone: fine
}

TEST(OutputLinks, Hdf5FieldFilesAndPublishedPlotsKeepTheLink) {
  Scratch dir;
  const Grid g = Grid::box(2, {5, 5, 1}, {0, 0, 0}, {1, 1, 0});
  fs::create_symlink("kept.h5", dir / "fields.h5");
  FieldFileWriter w(g);
  w.add("p", Field<double>(g, Device::cpu));
  w.write(dir.path().string(), "fields", "an-id");
  EXPECT_TRUE(fs::is_symlink(dir / "fields.h5"));
  EXPECT_EQ(hdf5_run_id(dir / "kept.h5"), "an-id");

  // A picture another program drew, renamed into place.
  std::ofstream(dir / "plot.png") << "old";
  fs::create_symlink("plot.png", dir / "figure.png");
  std::ofstream(dir / "figure.png.tmp") << "drawn";
  publish_file(dir / "figure.png.tmp", dir / "figure.png");
  EXPECT_TRUE(fs::is_symlink(dir / "figure.png"));
  EXPECT_EQ(read_text(dir / "plot.png"), "drawn");
  EXPECT_FALSE(fs::exists(dir / "figure.png.tmp"));
}
