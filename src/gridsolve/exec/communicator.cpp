// Communicator over MPI's C API (the only file that includes mpi.h), or one rank without it.
#include "gridsolve/exec/communicator.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/device.hpp"

#if GRIDSOLVE_HAVE_MPI
#include "gridsolve/exec/mpi_comm.hpp"
#endif

namespace gridsolve {

namespace {

#if GRIDSOLVE_HAVE_MPI
// MPI counts are int: a message beyond 2 GiB is a programming error here (faces are small).
// Longer messages travel as pieces of this many bytes (MPI counts in int).
constexpr std::size_t message_piece = std::size_t(1) << 30;

int count_of(std::size_t n) {
  require(n <= std::size_t(INT_MAX),
          "a message between ranks of " + std::to_string(n) + " bytes exceeds MPI's int count");
  return int(n);
}
void check_mpi(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string(what) + " failed: " + std::string(text, std::size_t(length)),
              Error::Kind::runtime);
}
#endif

}  // namespace

const Communicator& Communicator::world() {
  // Made on first use; an MpiSession started before it fills in rank and size.
  static Communicator one_rank;
  return one_rank;
}

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(name)) return true;
  return false;
}

std::string mpi_description() {
#if GRIDSOLVE_HAVE_MPI
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string s(text, std::size_t(length));
  if (const auto end = s.find_first_of(",\n"); end != std::string::npos) s.resize(end);
  return s;
#else
  return "none (built without MPI: one process)";
#endif
}

MpiSession::MpiSession(int& argc, char**& argv, bool start) {
#if GRIDSOLVE_HAVE_MPI
  if (!start) return;
  int provided = 0;
  check_mpi(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  // Errors come back as codes that check_mpi turns into messages, not as MPI's own abort.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  auto& w = const_cast<Communicator&>(Communicator::world());
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size_);
  // The ranks that share this machine (and its GPUs), numbered from 0.
  MPI_Comm local = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w.rank_, MPI_INFO_NULL,
                                &local),
            "MPI_Comm_split_type");
  MPI_Comm_rank(local, &w.local_rank_);
  MPI_Comm_size(local, &w.local_size_);
  MPI_Comm_free(&local);
  w.mpi_ = true;
  started_ = true;
  // Before anything touches CUDA: each rank of a machine takes its own GPU.
  use_gpu_of_local_rank(w.local_rank_);
#else
  (void)argc, (void)argv;
  // Started by mpirun as several copies, a build without MPI would run the whole problem
  // in each, all writing the same files: refuse instead.
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!size) size = std::getenv("PMI_SIZE");
  if (start && size && std::atoi(size) > 1) {
    std::fprintf(stderr,
                 "gridsolve: this build has no MPI, so each of the %s processes mpirun started "
                 "would solve the whole problem alone; rebuild with MPI (libopenmpi-dev) or "
                 "run one process\n",
                 size);
    std::exit(2);
  }
#endif
}

RanksScope::RanksScope(std::uintptr_t handle) : before_(Communicator::world()) {
#if GRIDSOLVE_HAVE_MPI
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  require(initialized && !finalized,
          "a communicator's ranks can be used only while MPI runs (started by its library, "
          "e.g. mpi4py)");
  const MPI_Comm given = mpi_comm_of_handle(handle);
  // The ranks of the first communicator given, kept for the process.
  static Communicator ranks;
  if (!ranks.mpi_) {
    MPI_Comm own = MPI_COMM_NULL;
    check_mpi(MPI_Comm_dup(given, &own), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(own, MPI_ERRORS_RETURN);
    MPI_Comm_rank(own, &ranks.rank_);
    MPI_Comm_size(own, &ranks.size_);
    MPI_Comm local = MPI_COMM_NULL;
    check_mpi(MPI_Comm_split_type(own, MPI_COMM_TYPE_SHARED, ranks.rank_, MPI_INFO_NULL, &local),
              "MPI_Comm_split_type");
    MPI_Comm_rank(local, &ranks.local_rank_);
    MPI_Comm_size(local, &ranks.local_size_);
    MPI_Comm_free(&local);
    ranks.handle_ = handle_of_mpi_comm(own);
    ranks.mpi_ = true;
    use_gpu_of_local_rank(ranks.local_rank_);  // as under mpirun: a GPU per rank of a machine
  } else {
    int same = MPI_UNEQUAL;
    check_mpi(MPI_Comm_compare(mpi_comm_of_handle(ranks.handle_), given, &same),
              "MPI_Comm_compare");
    require(same == MPI_IDENT || same == MPI_CONGRUENT,
            "gridsolve runs on one set of ranks per process, and this communicator's ranks "
            "differ from the first one's");
  }
  const_cast<Communicator&>(Communicator::world()) = ranks;
#else
  (void)handle;
  require(false, "this build of gridsolve has no MPI, so it cannot run on a communicator's ranks");
#endif
}

RanksScope::~RanksScope() {
  const_cast<Communicator&>(Communicator::world()) = before_;
}

MpiSession::~MpiSession() {
#if GRIDSOLVE_HAVE_MPI
  if (!started_) return;
  MPI_Finalize();
  auto& w = const_cast<Communicator&>(Communicator::world());
  w.rank_ = 0, w.size_ = 1, w.local_rank_ = 0, w.local_size_ = 1, w.mpi_ = false;
#endif
}

double Communicator::sum(double x) const {
  sum(std::span<double>(&x, 1));
  return x;
}
double Communicator::max(double x) const {
  max(std::span<double>(&x, 1));
  return x;
}
double Communicator::min(double x) const {
  x = -x;
  max(std::span<double>(&x, 1));
  return -x;
}

void Communicator::sum(std::span<double> values) const {
  all_reduce(values, false);
}

void Communicator::max(std::span<double> values) const {
  all_reduce(values, true);
}

void Communicator::all_reduce(std::span<double> values, bool maximum) const {
#if GRIDSOLVE_HAVE_MPI
  if (mpi_ && size_ > 1)
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), count_of(values.size()), MPI_DOUBLE,
                            maximum ? MPI_MAX : MPI_SUM, run_mpi_comm()),
              maximum ? "MPI_Allreduce (max)" : "MPI_Allreduce (sum)");
#else
  (void)values, (void)maximum;
#endif
}

std::vector<double> Communicator::gather_all(std::span<const double> values) const {
  std::vector<double> all(values.size() * std::size_t(size_));
  std::copy(values.begin(), values.end(), all.begin());
#if GRIDSOLVE_HAVE_MPI
  if (mpi_ && size_ > 1)
    check_mpi(MPI_Allgather(values.data(), count_of(values.size()), MPI_DOUBLE, all.data(),
                            count_of(values.size()), MPI_DOUBLE, run_mpi_comm()),
              "MPI_Allgather");
#endif
  return all;
}

SumOfSquares Communicator::sum_in_rank_order(const SumOfSquares& mine) const {
  const double parts[3] = {mine.small, mine.medium, mine.big};
  const std::vector<double> all = gather_all(parts);
  SumOfSquares total;
  for (std::size_t r = 0; r + 2 < all.size(); r += 3)
    total = total + SumOfSquares{all[r], all[r + 1], all[r + 2]};
  return total;
}

void Communicator::broadcast(std::span<std::byte> bytes, int root) const {
#if GRIDSOLVE_HAVE_MPI
  if (mpi_ && size_ > 1)
    for (std::size_t at = 0; at < bytes.size(); at += message_piece)  // pieces MPI can count
      check_mpi(MPI_Bcast(bytes.data() + at, int(std::min(message_piece, bytes.size() - at)),
                          MPI_BYTE, root, run_mpi_comm()),
                "MPI_Bcast");
#else
  (void)bytes, (void)root;
#endif
}

void Communicator::broadcast(std::string& text, int root) const {
  if (size_ == 1) return;
  double length = double(text.size());  // the size first, so receivers can make room
  broadcast(std::as_writable_bytes(std::span<double>(&length, 1)), root);
  text.resize(std::size_t(length));
  broadcast(std::as_writable_bytes(std::span<char>(text.data(), text.size())), root);
}

void Communicator::barrier() const {
#if GRIDSOLVE_HAVE_MPI
  if (mpi_ && size_ > 1) check_mpi(MPI_Barrier(run_mpi_comm()), "MPI_Barrier");
#endif
}

void Communicator::exchange(std::span<const Message> outgoing,
                            std::span<const Message> incoming) const {
  for (const Message& m : outgoing)
    require(m.peer >= 0 && m.peer < size_, "a message to rank " + std::to_string(m.peer) +
                                               " of a run of " + std::to_string(size_));
#if GRIDSOLVE_HAVE_MPI
  if (mpi_) {
    std::vector<MPI_Request> requests;
    // A message longer than MPI's int count goes as pieces under its tag; MPI keeps the
    // order of messages between two ranks under one tag, so the pieces land in order.
    auto post = [&](const Message& m, bool receive) {
      const std::size_t pieces = std::max<std::size_t>(
          1, (m.bytes.size() + message_piece - 1) / message_piece);  // an empty one too
      for (std::size_t p = 0, at = 0; p < pieces; ++p, at += message_piece) {
        const std::size_t n = std::min(message_piece, m.bytes.size() - at);
        requests.push_back(MPI_REQUEST_NULL);
        check_mpi(receive ? MPI_Irecv(m.bytes.data() + at, int(n), MPI_BYTE, m.peer, m.tag,
                                      run_mpi_comm(), &requests.back())
                          : MPI_Isend(m.bytes.data() + at, int(n), MPI_BYTE, m.peer, m.tag,
                                      run_mpi_comm(), &requests.back()),
                  receive ? "MPI_Irecv" : "MPI_Isend");
      }
    };
    for (const Message& m : incoming) post(m, true);  // receives first: buffers wait
    for (const Message& m : outgoing) post(m, false);
    check_mpi(MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall");
    return;
  }
#endif
  // One rank: every message is to oneself; match by tag.
  for (const Message& in : incoming) {
    bool found = false;
    for (const Message& out : outgoing)
      if (out.tag == in.tag) {
        require(out.bytes.size() == in.bytes.size(),
                "a message to oneself of another size than its receiver expects");
        std::memcpy(in.bytes.data(), out.bytes.data(), in.bytes.size());
        found = true;
        break;
      }
    require(found, "a receive with tag " + std::to_string(in.tag) + " that nothing sends");
  }
}

void Communicator::abort(const std::string& message, int exit_code) const {
  if (size_ > 1)
    std::fprintf(stderr, "gridsolve: rank %d of %d: %s\n", rank_, size_, message.c_str());
  else
    std::fprintf(stderr, "gridsolve: %s\n", message.c_str());
  std::fflush(stderr);
#if GRIDSOLVE_HAVE_MPI
  // MPI_Abort ends every rank (the launcher passes the code on), so none waits forever
  // for a rank that left.
  if (mpi_ && size_ > 1) MPI_Abort(run_mpi_comm(), exit_code);
#endif
  std::exit(exit_code);
}

}  // namespace gridsolve
