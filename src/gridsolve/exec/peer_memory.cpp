// PeerMemory by CUDA IPC: each rank's memory handle reaches the others by MPI broadcast.
#include "gridsolve/exec/peer_memory.hpp"

#include <fmt/format.h>

#include <cstring>
#include <span>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device.hpp"

#if GRIDSOLVE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace gridsolve {

namespace {

#if GRIDSOLVE_HAVE_CUDA
void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  cudaGetLastError();
  throw Error(fmt::format("{} failed: {}", what, cudaGetErrorString(e)), Error::Kind::runtime);
}
#endif

}  // namespace

bool peer_memory_available() {
  const Communicator& comm = Communicator::world();
  if (comm.size() == 1) return false;
#if GRIDSOLVE_HAVE_CUDA
  // Every rank's GPU, by number on this host (the ranks of one host see the same numbers).
  const int mine = cuda_available() ? current_gpu() : -1;
  double gpus_here = 0;
  if (mine >= 0) {
    int count = 0;
    cudaGetDeviceCount(&count);
    gpus_here = count;
  }
  const double mine_d = mine;
  const std::vector<double> gpu = comm.gather_all(std::span<const double>(&mine_d, 1));
  bool ok = mine >= 0 && comm.local_size() == comm.size() && comm.local_size() <= gpus_here;
  for (int r = 0; r < comm.size() && ok; ++r) {
    const int theirs = int(gpu[std::size_t(r)]);
    if (r == comm.rank()) continue;
    if (theirs == mine || theirs < 0) {
      ok = false;
      break;
    }
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, mine, theirs) != cudaSuccess || !can) ok = false;
  }
  cudaGetLastError();
  return comm.min(ok ? 1.0 : 0.0) > 0;
#else
  return false;
#endif
}

PeerMemory::PeerMemory(void* mine) {
  const Communicator& comm = Communicator::world();
  me_ = comm.rank();
  at_.assign(std::size_t(comm.size()), nullptr);
  at_[std::size_t(me_)] = mine;
#if GRIDSOLVE_HAVE_CUDA
  cudaIpcMemHandle_t handle{};
  check(cudaIpcGetMemHandle(&handle, mine), "cudaIpcGetMemHandle");
  for (int r = 0; r < comm.size(); ++r) {
    cudaIpcMemHandle_t h = handle;
    comm.broadcast(std::as_writable_bytes(std::span<cudaIpcMemHandle_t>(&h, 1)), r);
    if (r == me_) continue;
    void* p = nullptr;
    check(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
    at_[std::size_t(r)] = p;
  }
#else
  throw Error("peer memory needs a CUDA build", Error::Kind::runtime);
#endif
}

PeerMemory::~PeerMemory() {
#if GRIDSOLVE_HAVE_CUDA
  // The peers' kernels may still use this rank's memory: no rank unmaps or frees before
  // every rank is done.
  cudaDeviceSynchronize();
  Communicator::world().barrier();
  for (std::size_t r = 0; r < at_.size(); ++r)
    if (int(r) != me_ && at_[r]) cudaIpcCloseMemHandle(at_[r]);
#endif
}

PeerFence::PeerFence() {
  const Communicator& comm = Communicator::world();
  theirs_.assign(std::size_t(comm.size()), nullptr);
#if GRIDSOLVE_HAVE_CUDA
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventInterprocess),
        "interprocess event");
  mine_ = e;
  cudaIpcEventHandle_t handle{};
  check(cudaIpcGetEventHandle(&handle, e), "cudaIpcGetEventHandle");
  for (int r = 0; r < comm.size(); ++r) {
    cudaIpcEventHandle_t h = handle;
    comm.broadcast(std::as_writable_bytes(std::span<cudaIpcEventHandle_t>(&h, 1)), r);
    if (r == comm.rank()) continue;
    cudaEvent_t theirs = nullptr;
    check(cudaIpcOpenEventHandle(&theirs, h), "cudaIpcOpenEventHandle");
    theirs_[std::size_t(r)] = theirs;
  }
#else
  throw Error("peer memory needs a CUDA build", Error::Kind::runtime);
#endif
}

PeerFence::~PeerFence() {
#if GRIDSOLVE_HAVE_CUDA
  cudaDeviceSynchronize();
  Communicator::world().barrier();
  for (void* e : theirs_)
    if (e) cudaEventDestroy(static_cast<cudaEvent_t>(e));
  if (mine_) cudaEventDestroy(static_cast<cudaEvent_t>(mine_));
#endif
}

void PeerFence::fence() {
#if GRIDSOLVE_HAVE_CUDA
  check(cudaEventRecord(static_cast<cudaEvent_t>(mine_), cudaStreamLegacy), "fence event");
  Communicator::world().barrier();
  for (void* e : theirs_)
    if (e) check(cudaStreamWaitEvent(cudaStreamLegacy, static_cast<cudaEvent_t>(e), 0), "fence");
#endif
}

}  // namespace gridsolve
