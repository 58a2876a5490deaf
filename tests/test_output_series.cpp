// Result sets written while a run goes on (flow frames, micromag snapshots and tables): one
// run id in every file, and never another run's summary beside a partial series.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <iterator>
#include <regex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "gridsolve/core/grid.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/io/hdf5_writer.hpp"
#include "gridsolve/io/result_set.hpp"
#include "output_test_support.hpp"

using namespace gridsolve;
using namespace gridsolve::output_testing;

namespace {

// The Taylor-Green vortex of examples/flow on a coarser grid: a transient run with a frame
// series, a few seconds long on the CPU.
std::string taylor_green_case(const Scratch& dir, double t_end) {
  const std::string path = dir / "tg.toml";
  std::ofstream(path) << "[flow]\nname = \"taylor-green\"\ncells = [32, 32]\nlo = [0, 0]\n"
                         "hi = [6.283185307179586, 6.283185307179586]\nnu = 0.01\n"
                         "[boundary.x_low]\ntype = \"periodic\"\n[boundary.x_high]\n"
                         "type = \"periodic\"\n[boundary.y_low]\ntype = \"periodic\"\n"
                         "[boundary.y_high]\ntype = \"periodic\"\n"
                         "[initial]\nu = \"sin(x) * cos(y)\"\nv = \"-cos(x) * sin(y)\"\n"
                         "[method]\ncoupling = \"piso\"\ntime = \"bdf2\"\nt_end = "
                      << t_end << "\ncfl = 0.5\n";
  return path;
}

std::string summary_run_id(const std::string& dir) {
  return nlohmann::json::parse(read_text(dir + "/summary.json")).at("run_id");
}

// The run id an XDMF file's Information element, an OVF file's Desc line or a CSV file's
// run_id column (the last) records; for a CSV file, the same on every row, else "mixed".
std::string text_run_id(const std::string& path) {
  static const std::regex xdmf(R"re(<Information Name="run_id" Value="([^"]+)"/>)re");
  static const std::regex ovf(R"(\n# Desc: run_id (\S+)\n)");
  const std::string text = read_text(path);
  if (path.ends_with(".csv")) {
    std::istringstream in(text);
    std::string line, id;
    std::getline(in, line);
    if (!line.ends_with(",run_id")) return {};
    while (std::getline(in, line)) {
      const std::string row_id = line.substr(line.rfind(',') + 1);
      if (!id.empty() && row_id != id) return "mixed";
      id = row_id;
    }
    return id;
  }
  std::smatch m;
  if (std::regex_search(text, m, xdmf) || std::regex_search(text, m, ovf)) return m[1].str();
  return {};
}

// Every file of the folder (frames/ included) that records a run id, with the id.
std::vector<std::pair<std::string, std::string>> run_ids_in(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> ids;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string p = e.path().string(), ext = e.path().extension().string();
    if (ext == ".h5") ids.push_back({p, hdf5_run_id(p)});
    if (ext == ".xdmf" || ext == ".csv" || ext == ".ovf") ids.push_back({p, text_run_id(p)});
  }
  return ids;
}

int entries_in(const std::string& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.is_regular_file() ? 1 : 0;
  return n;
}

// Starts `args` (the gridsolve command's arguments) in a child of its own, SIGINT not
// ignored (a background job of sh would ignore it), output discarded.
pid_t start_cli(const std::vector<std::string>& args) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGINT, SIG_DFL);
    std::freopen("/dev/null", "w", stdout);
    std::vector<char*> argv{const_cast<char*>(GRIDSOLVE_CLI)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(GRIDSOLVE_CLI, argv.data());
    ::_exit(127);
  }
  return pid;
}

// Waits (up to a minute) until `ready` holds; false when it never did.
template <class Ready>
bool wait_for(Ready ready) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < give_up) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

}  // namespace

// Run A to its end, then run B into the same folder, interrupted by SIGINT after a few of
// its frames: the folder holds B's partial series and no summary.json, nothing of A.
TEST(OutputSeries, InterruptedFlowRunNeverSitsBesideAnotherRunsSummary) {
  Scratch dir;
  const std::string out = dir / "F";
  const std::string tg = taylor_green_case(dir, 2);
  const Outcome a =
      shell("$GS flow " + tg + " --device cpu -q --no-plots --frames 20 --out " + out);
  ASSERT_EQ(a.code, 0) << a.output;
  const std::string id_a = summary_run_id(out);
  // One run id in every file: summary, CSVs, fields, the series and each frame.
  const auto files_a = run_ids_in(out);
  EXPECT_GE(files_a.size(), 45u);  // 20 frames of .h5 + .xdmf, fields, series, CSVs
  for (const auto& [path, id] : files_a) EXPECT_EQ(id, id_a) << path;
  EXPECT_EQ(text_run_id(out + "/history.csv"), id_a);
  EXPECT_EQ(hdf5_run_id(out + "/fields.h5"), id_a);

  // B runs ten times longer: its frames come ten times slower than A's did.
  const std::string tg_long = taylor_green_case(dir, 20);
  const pid_t b = start_cli(
      {"flow", tg_long, "--device", "cpu", "-q", "--no-plots", "--frames", "20", "--out", out});
  ASSERT_GT(b, 0);
  // SIGINT once B has written its third frame.
  const bool b_wrote = wait_for([&] {
    const std::string id = hdf5_run_id(out + "/frames/fields_0002.h5");
    return !id.empty() && id != id_a;
  });
  ::kill(b, SIGINT);
  int status = 0;
  ::waitpid(b, &status, 0);
  ASSERT_TRUE(b_wrote) << "run B wrote no frames";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);

  EXPECT_FALSE(fs::exists(out + "/summary.json"));
  for (const char* f : {"history.csv", "fields.h5", "fields.xdmf", "centreline_u.csv"})
    EXPECT_FALSE(fs::exists(out + "/" + f)) << f << " of run A stayed";
  const std::string id_b = text_run_id(out + "/series.xdmf");
  EXPECT_NE(id_b, id_a);
  for (const auto& [path, id] : run_ids_in(out)) EXPECT_EQ(id, id_b) << path;
  // The series lists exactly the frames on disk (or one fewer, if SIGINT came between a
  // frame and the series' rewrite).
  const std::string series = read_text(out + "/series.xdmf");
  const std::regex time_element("<Time ");
  const int listed = int(std::distance(
      std::sregex_iterator(series.begin(), series.end(), time_element), std::sregex_iterator()));
  const int frames = entries_in(out + "/frames") / 2;
  EXPECT_GE(listed, 2);
  EXPECT_TRUE(listed == frames || listed + 1 == frames) << listed << " listed, " << frames;
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

// A run without frames (steady) into the folder of a transient run: its summary never sits
// beside the old series or the force history its case does not produce.
TEST(OutputSeries, SteadyFlowRunRetiresTheSeriesOfAnEarlierTransientRun) {
  Scratch dir;
  const std::string out = dir / "F";
  const Outcome a = shell("$GS flow " + taylor_green_case(dir, 1) +
                          " --device cpu -q --no-plots --frames 4 --out " + out);
  ASSERT_EQ(a.code, 0) << a.output;
  ASSERT_TRUE(fs::exists(out + "/series.xdmf"));
  std::ofstream(out + "/forces.csv") << "t,c_d,c_l\n";  // as a case with a body leaves
  const Outcome b = shell(
      "$GS cavity --re 100 --n 16 --max-iter 50 --device cpu -q --no-plots "
      "--out " +
      out);
  ASSERT_TRUE(b.code == 0 || b.code == 3) << b.output;
  const std::string id = summary_run_id(out);
  EXPECT_FALSE(fs::exists(out + "/series.xdmf"));
  EXPECT_FALSE(fs::exists(out + "/forces.csv"));
  EXPECT_EQ(entries_in(out + "/frames"), 0);
  for (const auto& [path, file_id] : run_ids_in(out)) EXPECT_EQ(file_id, id) << path;
}

// A restart continues its run: the same run id, the earlier frames kept, the later frames
// of an interrupted attempt and another run's frames removed.
TEST(OutputSeries, FlowRestartKeepsItsOwnFramesAndRunId) {
  Scratch dir;
  const std::string out = dir / "F";
  const std::string tg = taylor_green_case(dir, 2);
  const Outcome first = shell("$GS flow " + tg +
                              " --device cpu -q --no-plots --frames 8 "
                              "--stop-after 10 --out " +
                              out);
  ASSERT_EQ(first.code, 3) << first.output;
  const std::string id = text_run_id(out + "/series.xdmf");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(fs::exists(out + "/frames/fields_0001.h5"));
  ASSERT_FALSE(fs::exists(out + "/frames/fields_0007.h5"));
  // A frame beyond the checkpoint (an attempt that went on and died) and a frame of
  // another run among the earlier ones.
  fs::copy_file(out + "/frames/fields_0001.h5", out + "/frames/fields_0007.h5");
  {
    ResultSet other(dir / "other");
    FieldFileWriter w(Grid::box(2, {4, 4, 1}, {0, 0, 0}, {1, 1, 0}));
    w.add("p", Field<double>(Grid::box(2, {4, 4, 1}, {0, 0, 0}, {1, 1, 0}), Device::cpu));
    w.stage(other, "fields_0000");
    other.stage_text("summary.json", "{}\n");
    other.commit("summary.json");
    fs::copy_file(dir / "other/fields_0000.h5", out + "/frames/fields_0000.h5",
                  fs::copy_options::overwrite_existing);
  }
  const Outcome second = shell("$GS flow " + tg + " --device cpu --no-plots --frames 8 --restart " +
                               out + "/checkpoint.gsflow --out " + out);
  ASSERT_EQ(second.code, 0) << second.output;
  EXPECT_TRUE(contains(second.output, "frames of another run")) << second.output;
  EXPECT_EQ(summary_run_id(out), id);
  EXPECT_FALSE(fs::exists(out + "/frames/fields_0000.h5"));
  EXPECT_TRUE(fs::exists(out + "/frames/fields_0007.h5"));  // written again by the restart
  for (const auto& [path, file_id] : run_ids_in(out)) EXPECT_EQ(file_id, id) << path;
}

// Micromag writes its snapshots and table as it goes: a new run first removes the previous
// run's summary and files (and only those), then every file it writes carries its run id.
TEST(OutputSeries, MicromagRunReplacesThePreviousRunsFilesAndRecordsItsId) {
  Scratch dir;
  const std::string out = dir / "M";
  const std::string cfg = dir / "m.toml";
  std::ofstream(cfg) << "[mesh]\ncells = [16, 4, 1]\nsize = [125e-9, 31.25e-9, 3e-9]\n"
                        "[material]\nMs = 8.0e5\nA = 1.3e-11\nalpha = 0.5\n"
                        "[initial]\nstate = \"uniform\"\ndirection = [1, 0.1, 0]\n"
                        "[solver]\nprecision = \"double\"\ndevice = \"cpu\"\n"
                        "[output]\ndir = \""
                     << out
                     << "\"\nplots = false\nhdf5 = true\nsnapshot_interval = 0.005e-9\n"
                        "[[stage]]\nkind = \"run\"\ntime = 0.01e-9\n";
  fs::create_directories(out);
  for (const char* stale :
       {"summary.json", "m000007.ovf", "m000007.h5", "m_stage3_run.xdmf", "sp3.csv", "table.csv"})
    std::ofstream(out + "/" + stale) << "from an earlier run\n";
  std::ofstream(out + "/notes.txt") << "the user's own\n";
  const Outcome o = shell("$GS micromag " + cfg + " -q");
  ASSERT_EQ(o.code, 0) << o.output;
  const std::string id = summary_run_id(out);
  for (const char* stale : {"m000007.ovf", "m000007.h5", "m_stage3_run.xdmf", "sp3.csv"})
    EXPECT_FALSE(fs::exists(out + "/" + stale)) << stale;
  EXPECT_TRUE(fs::exists(out + "/notes.txt"));
  EXPECT_TRUE(fs::exists(out + "/m000000.ovf"));
  EXPECT_TRUE(fs::exists(out + "/m_stage1_run.h5"));
  EXPECT_TRUE(contains(read_text(out + "/m000000.ovf"), "# Desc: run_id " + id + "\n"));
  for (const auto& [path, file_id] : run_ids_in(out)) EXPECT_EQ(file_id, id) << path;
  EXPECT_EQ(read_text(out + "/table.csv").rfind("t,mx,my,mz,", 0), 0u);

  // A run that starts from a snapshot of the previous run in the same folder keeps it
  // until it has read it.
  fs::rename(out + "/m000001.ovf", out + "/m000099.ovf");
  std::string text = read_text(cfg);
  const std::string uniform = "state = \"uniform\"\ndirection = [1, 0.1, 0]";
  text.replace(text.find(uniform), uniform.size(),
               "state = \"file\"\nfile = \"" + out + "/m000099.ovf\"");
  std::ofstream(cfg) << text;
  const Outcome again = shell("$GS micromag " + cfg + " -q");
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_NE(summary_run_id(out), id);
  EXPECT_TRUE(fs::exists(out + "/m000099.ovf"));
}

// A folder where summary.json belongs is refused before the run (exit 2), and nothing of
// the previous run is removed.
TEST(OutputSeries, MicromagRefusesAFolderAsItsSummaryBeforeRemovingAnything) {
  Scratch dir;
  const std::string out = dir / "M";
  const std::string cfg = dir / "m.toml";
  std::ofstream(cfg) << "[mesh]\ncells = [8, 4, 1]\nsize = [62.5e-9, 31.25e-9, 3e-9]\n"
                        "[material]\nMs = 8.0e5\nA = 1.3e-11\nalpha = 0.5\n"
                        "[solver]\ndevice = \"cpu\"\n[output]\ndir = \""
                     << out << "\"\nplots = false\n[[stage]]\nkind = \"run\"\ntime = 1e-12\n";
  fs::create_directories(out + "/summary.json");
  std::ofstream(out + "/table.csv") << "from an earlier run\n";
  const Outcome o = shell("$GS micromag " + cfg + " -q");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "summary.json': it is a directory")) << o.output;
  EXPECT_EQ(read_text(out + "/table.csv"), "from an earlier run\n");
}
