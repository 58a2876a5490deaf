// Output files under adverse conditions: special files, full disks, signals, result sets, plots.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include <nlohmann/json.hpp>

#include "gridsolve/core/error.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/gnuplot.hpp"
#include "gridsolve/io/result_set.hpp"
#include "output_test_support.hpp"

using namespace gridsolve;
using namespace gridsolve::output_testing;

namespace {

// A character device node of the kernel's null (1, 3) or full (1, 7) driver, made in a
// scratch folder: the machine's own /dev entries are never touched. Empty when this
// machine does not let us create or open one (no root, a device cgroup).
std::string make_device_node(const Scratch& dir, const std::string& name, unsigned minor) {
  const std::string path = dir / name;
  if (::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor)) != 0) return {};
  const int fd = ::open(path.c_str(), O_WRONLY);
  if (fd < 0) return {};
  ::close(fd);
  return path;
}

bool is_char_device(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

bool is_fifo(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

const char* small_systems = "3 1\n0 4 -1 1\n-1 4 -1 2\n-1 4 0 3\n";

// The run_id attribute on the root of an HDF5 file.
std::string h5_run_id(const std::string& path) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return {};
  std::string value;
  const hid_t a = H5Aopen(f, "run_id", H5P_DEFAULT);
  if (a >= 0) {
    const hid_t t = H5Aget_type(a);
    value.assign(H5Tget_size(t), '\0');
    const hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, value.size());
    H5Aread(a, mem, value.data());
    value.resize(std::strlen(value.c_str()));
    H5Tclose(mem);
    H5Tclose(t);
    H5Aclose(a);
  }
  H5Fclose(f);
  return value;
}

}  // namespace

TEST(OutputSpecialFiles, DeviceNodeIsWrittenInPlaceNeverReplaced) {
  Scratch dir;
  const std::string node = make_device_node(dir, "null_device", 3);
  if (node.empty()) GTEST_SKIP() << "cannot create a device node here (needs root)";
  write_file_atomically(node, "some results\n");
  EXPECT_TRUE(is_char_device(node));
  std::ofstream(dir / "sys.txt") << small_systems;
  const Outcome o = shell("$GS tridiag " + (dir / "sys.txt") + " -o " + node + " -q");
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_TRUE(is_char_device(node)) << "the device node was replaced";
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

TEST(OutputSpecialFiles, FifoIsWrittenInPlaceWithItsReader) {
  Scratch dir;
  const std::string fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] {
    std::ifstream in(fifo, std::ios::binary);  // blocks until the writer opens
    std::ostringstream s;
    s << in.rdbuf();
    received = s.str();
  });
  write_file_atomically(fifo, "through the pipe\n");
  reader.join();
  EXPECT_EQ(received, "through the pipe\n");
  EXPECT_TRUE(is_fifo(fifo));
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

TEST(OutputSpecialFiles, FifoWithoutReaderIsRefusedNotReplaced) {
  Scratch dir;
  const std::string fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    write_file_atomically(fifo, "nobody reads this\n");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "no process opened it for reading")) << e.what();
  }
  EXPECT_TRUE(is_fifo(fifo));
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

TEST(OutputSpecialFiles, TargetsThatCannotBeWrittenAreRefused) {
  Scratch dir;
  fs::create_directories(dir / "folder");
  ASSERT_EQ(::mkfifo((dir / "solution.h5").c_str(), 0600), 0);
  // A folder is never replaced by a file.
  EXPECT_THROW(write_file_atomically(dir / "folder", "x"), Error);
  EXPECT_TRUE(fs::is_directory(dir / "folder"));
  // Files that must be renamed into place (HDF5, result sets) refuse a FIFO outright.
  EXPECT_THROW(AtomicOutput(dir / "solution.h5"), Error);
  try {
    ResultSet set(dir.path().string());
    set.stage("solution.h5");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::invalid_input);
    EXPECT_TRUE(contains(e.what(), "a FIFO")) << e.what();
  }
  EXPECT_TRUE(is_fifo(dir / "solution.h5"));
  // The command line: bad input, exit 2, before solving; the FIFO stays.
  const Outcome o = shell("$GS poisson --n 17 --device cpu -q --out " + dir.path().string());
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(is_fifo(dir / "solution.h5"));
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

TEST(OutputSpecialFiles, SymbolicLinkIsKeptAndItsTargetReplaced) {
  Scratch dir;
  write_file_atomically(dir / "real.txt", "old\n");
  fs::create_symlink("real.txt", dir / "link.txt");
  write_file_atomically(dir / "link.txt", "new\n");
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(read_text(dir / "real.txt"), "new\n");
}

// A full disk, made real with the file-size limit (ulimit -f, SIGXFSZ ignored: writes past
// it fail with EFBIG like they fail with ENOSPC on a full disk).
TEST(OutputDiskFull, FailedHdf5WriteKeepsTheOldResultsAndExitsOne) {
  Scratch dir;
  const std::string out = dir / "results";
  const Outcome first = shell("$GS poisson --n 17 --device cpu -q --out " + out);
  ASSERT_EQ(first.code, 0) << first.output;
  const std::string old_summary = read_text(out + "/summary.json");
  const std::string old_h5_id = h5_run_id(out + "/solution.h5");
  ASSERT_FALSE(old_h5_id.empty());
  // 129^2 nodes, two fields: about 270 kB, over a 100 kB limit.
  const Outcome o =
      shell("ulimit -f 100; trap '' XFSZ; $GS poisson --n 129 --device cpu -q --out " + out);
  EXPECT_EQ(o.code, 1) << o.output;
  EXPECT_TRUE(contains(o.output, "File too large")) << o.output;
  EXPECT_TRUE(contains(o.output, "solution.h5")) << o.output;
  EXPECT_EQ(read_text(out + "/summary.json"), old_summary);
  EXPECT_EQ(h5_run_id(out + "/solution.h5"), old_h5_id);
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

TEST(OutputDiskFull, FailedTextWriteAfterTheFieldsPublishesNothing) {
  Scratch dir;
  const std::string out = dir / "results";
  // The solution (33^2 nodes) fits in 60 kB, the history of 3000 checks does not.
  const Outcome o = shell(
      "ulimit -f 60; trap '' XFSZ; $GS heat --n 33 --device cpu --solver jacobi --tol 1e-30 "
      "--max-iter 3000 --check-every 1 -q --out " +
      out);
  EXPECT_EQ(o.code, 1) << o.output;
  EXPECT_TRUE(contains(o.output, "history.csv")) << o.output;
  EXPECT_TRUE(contains(o.output, "File too large")) << o.output;
  EXPECT_FALSE(fs::exists(out + "/solution.h5"));
  EXPECT_FALSE(fs::exists(out + "/summary.json"));
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

TEST(OutputDiskFull, FullDeviceReportsTheOsError) {
  Scratch dir;
  const std::string full = make_device_node(dir, "full_device", 7);
  if (full.empty()) GTEST_SKIP() << "cannot create a device node here (needs root)";
  try {
    write_file_atomically(full, "does not fit\n");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::runtime);
    EXPECT_TRUE(contains(e.what(), "No space left on device")) << e.what();
  }
  EXPECT_TRUE(is_char_device(full));
}

TEST(OutputSignals, TerminationSignalRemovesTemporaries) {
  Scratch dir;
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    remove_temporaries_on_termination_signals();
    AtomicOutput a(dir / "summary.json");
    AtomicOutput b(dir / "solution.h5");
    TemporaryPath plot(dir / "plot.png.tmp");  // as gnuplot would be drawing it
    std::ofstream(plot.path()) << "half a picture";
    (void)!::write(ready[1], "r", 1);
    for (;;) ::pause();
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  EXPECT_EQ(temporaries_in(dir.path()).size(), 2u);
  EXPECT_TRUE(fs::exists(dir / "plot.png.tmp"));
  ::kill(child, SIGINT);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);  // ends as SIGINT does
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
  EXPECT_FALSE(fs::exists(dir / "plot.png.tmp"));
}

TEST(OutputSignals, CommandInterruptedWhileSolvingLeavesNoTemporaries) {
  Scratch dir;
  // SIGTERM after half a second (a background job of sh ignores SIGINT).
  const Outcome o = shell(
      "$GS poisson --n 129 --device cpu --solver jacobi --max-iter 100000000 "
      "--tol 1e-30 -q --out " +
      (dir / "r") + " & pid=$!; sleep 0.5; kill -TERM $pid; wait $pid");
  EXPECT_EQ(o.code, 128 + SIGTERM) << o.output;
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

TEST(OutputResultSet, FilesCarryOneRunIdAndAKillBeforeCommitKeepsTheOldSet) {
  Scratch dir;
  const std::string out = dir / "r";
  const Outcome o = shell("$GS poisson --n 17 --device cpu -q --out " + out);
  ASSERT_EQ(o.code, 0) << o.output;
  const nlohmann::json summary = nlohmann::json::parse(read_text(out + "/summary.json"));
  const std::string id = summary.at("run_id");
  EXPECT_EQ(h5_run_id(out + "/solution.h5"), id);
  EXPECT_TRUE(contains(read_text(out + "/solution.xdmf"),
                       "<Information Name=\"run_id\" Value=\"" + id + "\"/>"));
  // history.csv: a last column run_id, the same on every row.
  const std::string history = read_text(out + "/history.csv");
  EXPECT_EQ(history.rfind("iteration,relative_residual,run_id\n", 0), 0u) << history;
  EXPECT_TRUE(history.ends_with("," + id + "\n")) << history;
  {
    // Staged but never committed (the process died first): nothing of it is seen.
    ResultSet next(out);
    next.stage_text("summary.json", "{\"run_id\": \"" + next.run_id() + "\"}\n");
    next.stage_text("history.csv", "iteration,relative_residual\n");
    EXPECT_NE(next.run_id(), id);
  }
  EXPECT_EQ(nlohmann::json::parse(read_text(out + "/summary.json")).at("run_id"), id);
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

TEST(OutputResultSet, FailureBetweenRenamesLeavesNoManifest) {
  Scratch dir;
  const std::string out = dir / "r";
  {
    ResultSet first(out);
    first.stage_text("a.txt", "first a\n");
    first.stage_text("b.txt", "first b\n");
    first.stage_text("summary.json", "{}\n");
    first.commit("summary.json");
  }
  ResultSet second(out);
  second.stage_text("a.txt", "second a\n");
  second.stage_text("b.txt", "second b\n");
  second.stage_text("summary.json", "{\"second\": true}\n");
  // b.txt becomes a non-empty folder: its rename fails after a.txt's succeeded.
  fs::remove(out + "/b.txt");
  fs::create_directories(out + "/b.txt/inside");
  EXPECT_THROW(second.commit("summary.json"), Error);
  // No manifest: the folder says its set is incomplete instead of mixing two runs.
  EXPECT_FALSE(fs::exists(out + "/summary.json"));
  EXPECT_EQ(read_text(out + "/a.txt"), "second a\n");
}

namespace {

// A stand-in gnuplot on PATH for the duration of a test.
class FakeGnuplot {
 public:
  FakeGnuplot(const Scratch& dir, const std::string& body) : old_(std::getenv("PATH")) {
    const std::string bin = dir / "bin";
    fs::create_directories(bin);
    std::ofstream(bin + "/gnuplot") << "#!/bin/sh\n" << body << "\n";
    fs::permissions(bin + "/gnuplot", fs::perms::owner_all);
    ::setenv("PATH", (bin + ":" + old_).c_str(), 1);
  }
  ~FakeGnuplot() { ::setenv("PATH", old_.c_str(), 1); }

 private:
  std::string old_;
};

}  // namespace

TEST(OutputGnuplot, HangingGnuplotIsStoppedAtItsTimeLimit) {
  Scratch dir;
  FakeGnuplot fake(dir, "exec sleep 60");
  const auto t0 = std::chrono::steady_clock::now();
  const std::string problem = run_gnuplot(dir.path().string(), "plot.gp", 0.5);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(contains(problem, "did not finish within 0.5 s")) << problem;
  EXPECT_LT(seconds, 5.0);
}

TEST(OutputGnuplot, FolderNameStartingWithDashWorks) {
  Scratch dir;
  FakeGnuplot fake(dir, "echo \"$1\" > ran.txt");
  const fs::path previous = fs::current_path();
  fs::current_path(dir.path());
  fs::create_directories("-plots");
  const std::string problem = run_gnuplot("-plots", "plot.gp", 10);
  fs::current_path(previous);
  EXPECT_EQ(problem, "");
  EXPECT_EQ(read_text(dir / "-plots/ran.txt"), "./plot.gp\n");
}

TEST(OutputGnuplot, FailureReportsGnuplotsMessage) {
  Scratch dir;
  FakeGnuplot fake(dir, "echo 'line 3: undefined variable: foo' >&2; exit 1");
  const std::string problem = run_gnuplot(dir.path().string(), "plot.gp", 10);
  EXPECT_TRUE(contains(problem, "undefined variable: foo")) << problem;
  EXPECT_TRUE(contains(problem, "exit status 1")) << problem;
}
