// Communicator: the processes (ranks) of one run and what they do together: reductions,
// broadcasts, barriers, point-to-point messages, and stopping every rank on an error.
// Without MPI, or when MPI was not started, it is a world of one rank.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gridsolve/core/sum_of_squares.hpp"

namespace gridsolve {

// Starts MPI for the life of the object when this build has it and `start` says so, and
// finalizes it after. Threads: only the thread that made it calls MPI (OpenMP threads
// compute, they never communicate), so MPI_THREAD_FUNNELED is asked for.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv, bool start = true);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  bool started() const { return started_; }

 private:
  bool started_ = false;
};

// True when a launcher (mpirun / mpiexec of Open MPI, MPICH or Slurm) started this
// process: its environment names a world size. A plain `gridsolve ...` then does not
// start MPI at all, and stays the one-process program.
bool launched_by_mpi();

// A description of the MPI this build links ("Open MPI v4.1.4, ..."), or why there is none.
std::string mpi_description();

// One message of an exchange: `bytes` go to, or come from, rank `peer` under `tag`.
struct Message {
  int peer = -1;
  int tag = 0;
  std::span<std::byte> bytes;
};

class Communicator {
 public:
  // Every rank of the run (MPI_COMM_WORLD once an MpiSession started MPI, or the
  // communicator adopted from the caller, else one rank).
  static const Communicator& world();
  // The run's MPI_Comm as an integer; 0 for MPI_COMM_WORLD (mpi_comm.hpp converts it).
  std::uintptr_t mpi_handle() const { return handle_; }

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }
  // This rank among the ranks of its machine, and how many those are: the rank takes the
  // GPU of that number (modulo the GPUs the machine has).
  int local_rank() const { return local_rank_; }
  // Whether MPI was started (under a launcher): libraries that take an MPI communicator
  // (HYPRE) need it, even for one rank.
  bool uses_mpi() const { return mpi_; }
  int local_size() const { return local_size_; }

  // All-reductions: every rank gets the same result. The span forms reduce element by
  // element in place, so the dot products of one Krylov iteration cost one message.
  double sum(double x) const;
  double max(double x) const;
  double min(double x) const;
  void sum(std::span<double> values) const;
  void max(std::span<double> values) const;
  // Every rank's `values` (the same count on each), rank after rank, on every rank: for
  // reductions that must combine in one order everywhere (a scaled norm).
  std::vector<double> gather_all(std::span<const double> values) const;
  // Every rank's scaled sum of squares added in rank order (gather_all): the same bits on
  // every rank, so that every rank takes the same decisions from the norm.
  SumOfSquares sum_in_rank_order(const SumOfSquares& mine) const;

  // Rank `root`'s bytes (or text) on every rank.
  void broadcast(std::span<std::byte> bytes, int root = 0) const;
  void broadcast(std::string& text, int root = 0) const;
  void barrier() const;

  // Receives every `incoming` and sends every `outgoing` at once, and returns when all
  // are done (no ordering between ranks is needed, so no pattern can deadlock). A
  // message to oneself is allowed.
  void exchange(std::span<const Message> outgoing, std::span<const Message> incoming) const;

  // Stops every rank: writes "gridsolve: <message>" (naming this rank when there are
  // several) to standard error and ends the run with exit_code. An error found on one
  // rank must end here, not in a return that leaves the others waiting in a collective.
  [[noreturn]] void abort(const std::string& message, int exit_code) const;

 private:
  // Sums (or takes the largest of) each value over every rank, in place.
  void all_reduce(std::span<double> values, bool maximum) const;
  Communicator() = default;
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  bool mpi_ = false;
  std::uintptr_t handle_ = 0;  // 0: MPI_COMM_WORLD
  friend class MpiSession;
  friend class RanksScope;
};

// For its life, world() is the ranks of a communicator the caller started MPI for (mpi4py,
// in the Python module); afterwards world() is what it was. gridsolve talks over a
// duplicate of it, made once, so its messages never mix with the caller's. `handle` is the
// MPI_Comm as an integer; every rank of it makes one alike. A process keeps one set of
// ranks (its GPU links are set up once for them): a communicator of other ranks than the
// first one's is refused, as is a build without MPI.
class RanksScope {
 public:
  explicit RanksScope(std::uintptr_t handle);
  ~RanksScope();
  RanksScope(const RanksScope&) = delete;
  RanksScope& operator=(const RanksScope&) = delete;

 private:
  Communicator before_;
};

}  // namespace gridsolve
