// DeviceLink: how device buffers travel between ranks. NCCL (grouped send / receive, and
// all-reduce in place) where every rank has a GPU of its own; staged through host memory
// and MPI where ranks share a GPU (NCCL refuses two ranks on one GPU) or the build has no
// NCCL. Device buffers never go to MPI directly: MPI here need not be CUDA-aware.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device.hpp"

namespace gridsolve {

class DeviceLink {
 public:
  // The link of every rank of the run. Made on the first call, which every rank must make
  // (it is collective: rank 0's NCCL id reaches the others by MPI).
  static DeviceLink& world();

  // Like Communicator::exchange, for device memory: every incoming and outgoing message at
  // once, on the stream the exec layer's kernels run on (ordered after the kernels that
  // packed the outgoing bytes, and before those that unpack the incoming).
  void exchange(std::span<const Message> outgoing, std::span<const Message> incoming);

  // Sums `values` (device memory) over every rank, in place, queued on the exec stream:
  // the host does not wait for it on the NCCL path.
  void sum(std::span<double> values);

  bool uses_nccl() const { return nccl_; }
  // "NCCL 2.27.3" or "staged through host memory (...why)".
  std::string describe() const { return description_; }

  DeviceLink(const DeviceLink&) = delete;
  DeviceLink& operator=(const DeviceLink&) = delete;

 private:
  DeviceLink();
  ~DeviceLink();
  bool nccl_ = false;
  std::string description_;
  void* comm_ = nullptr;  // ncclComm_t when nccl_
};

// What crossed between ranks since the program started, counted where it crosses (ghost
// messages in exchange_ghosts, sums in sum_over_ranks): what a benchmark divides its time
// and bytes by.
struct LinkTraffic {
  std::int64_t exchanges = 0;    // axis exchanges that sent at least one ghost message
  std::int64_t bytes_sent = 0;   // by this rank
  std::int64_t all_reduces = 0;  // sum_over_ranks calls on several ranks
};
LinkTraffic& link_traffic();

// Sums `values`, memory of device d, over every rank in place: MPI for host memory, the
// device link for GPU memory. Every rank calls it.
void sum_over_ranks(Device d, std::span<double> values);

// Communicator::exchange for messages in memory of device d: MPI for host memory, the
// device link for GPU memory; counted in link_traffic (one exchange, the outgoing bytes).
void exchange_over_ranks(Device d, std::span<const Message> outgoing,
                         std::span<const Message> incoming);

}  // namespace gridsolve
