// PeerMemory: the device buffers of the other ranks of one host, read and written directly
// by this rank's kernels over the GPUs' peer link (NVLink, or PCIe peer access), mapped by
// CUDA IPC. Where it applies, a transform needs no messages for its transposes: its kernels
// read the pieces where the other ranks made them and write the results back there, and
// the link's traffic overlaps the arithmetic inside those kernels.
#pragma once
#include <vector>

namespace gridsolve {

// Whether every rank of the run can reach every other rank's GPU directly: one host, a GPU
// of its own for each rank, peer access between every pair. Collective: every rank calls
// it and gets the same answer (false in builds without CUDA, and on one rank).
bool peer_memory_available();

// Collective: every rank shares the device allocation at `mine` (the start of a Buffer's
// memory on its own GPU) and maps every other rank's. Only where peer_memory_available().
class PeerMemory {
 public:
  explicit PeerMemory(void* mine);
  ~PeerMemory();
  PeerMemory(const PeerMemory&) = delete;
  PeerMemory& operator=(const PeerMemory&) = delete;

  // Rank r's buffer in this rank's address space (`mine` for this rank).
  void* at(int rank) const { return at_[std::size_t(rank)]; }

 private:
  std::vector<void*> at_;
  int me_ = 0;
};

// A fence between the ranks' GPUs, kept on the GPUs: what every rank queued on its legacy
// default stream before fence() (kernels writing to peer memory) is done before anything
// any rank queues after it runs. Each rank records an interprocess event, the ranks meet
// at a host barrier (the host runs ahead of its GPU, so the GPUs do not idle for it), and
// each rank's stream waits for every other rank's event. Collective, as its use is; only
// where peer_memory_available().
class PeerFence {
 public:
  PeerFence();
  ~PeerFence();
  PeerFence(const PeerFence&) = delete;
  PeerFence& operator=(const PeerFence&) = delete;
  void fence();

 private:
  void* mine_ = nullptr;        // cudaEvent_t
  std::vector<void*> theirs_;  // the other ranks' events, opened here (null for this rank)
};

}  // namespace gridsolve
