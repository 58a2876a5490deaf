// DeviceLink over NCCL (the only file that includes nccl.h), or staged through the host.
#include "gridsolve/exec/device_link.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/memory.hpp"

#if GRIDSOLVE_HAVE_CUDA
#include "gridsolve/exec/cuda_launch.cuh"
#endif
#if GRIDSOLVE_HAVE_NCCL
#include <nccl.h>
#endif

namespace gridsolve {

namespace {

#if GRIDSOLVE_HAVE_NCCL
void check_nccl(ncclResult_t code, const char* what) {
  if (code == ncclSuccess) return;
  throw Error(fmt::format("{} failed: {}", what, ncclGetErrorString(code)), Error::Kind::runtime);
}
#endif

// The order both ends of a pair of ranks post their messages in: NCCL matches a pair's
// sends and receives by order alone (it has no tags), so each side sorts by peer, then tag.
std::vector<Message> in_matching_order(std::span<const Message> messages) {
  std::vector<Message> m(messages.begin(), messages.end());
  std::stable_sort(m.begin(), m.end(), [](const Message& a, const Message& b) {
    return a.peer != b.peer ? a.peer < b.peer : a.tag < b.tag;
  });
  return m;
}

}  // namespace

DeviceLink& DeviceLink::world() {
  static DeviceLink link;
  return link;
}

DeviceLink::DeviceLink() {
  const Communicator& comm = Communicator::world();
  // NCCL needs a GPU per rank: ranks of one machine beyond its GPU count share one, and
  // then every rank stages (all must take the same path, so the decision is all-reduced).
  int gpus = 0;
#if GRIDSOLVE_HAVE_CUDA
  if (cuda_available()) cudaGetDeviceCount(&gpus);
#endif
  if (comm.max(gpus == 0 ? 1.0 : 0.0) > 0) {
    description_ = "none (a rank without a GPU)";
    return;
  }
  const bool shared = comm.max(comm.local_size() > gpus ? 1.0 : 0.0) > 0;
#if GRIDSOLVE_HAVE_NCCL
  if (!shared && comm.size() > 1) {
    ncclUniqueId id{};
    if (comm.is_root()) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    comm.broadcast(std::as_writable_bytes(std::span<char>(id.internal, sizeof(id.internal))));
    ncclComm_t c = nullptr;
    check_nccl(ncclCommInitRank(&c, comm.size(), id, comm.rank()), "ncclCommInitRank");
    comm_ = c;
    nccl_ = true;
    int version = 0;
    ncclGetVersion(&version);
    description_ =
        fmt::format("NCCL {}.{}.{}", version / 10000, (version / 100) % 100, version % 100);
    return;
  }
  description_ = shared ? "staged through host memory by MPI (ranks share a GPU, which NCCL "
                          "refuses)"
                        : "none needed (one rank)";
#else
  description_ = shared ? "staged through host memory by MPI (ranks share a GPU)"
                        : "staged through host memory by MPI (this build has no NCCL)";
#endif
}

// The NCCL communicator lives until the process ends and is not destroyed: the link is
// a static, torn down after main returns, when the CUDA runtime may be gone already, and
// destroying it then can hang. The process's end releases it.
DeviceLink::~DeviceLink() = default;

void DeviceLink::exchange(std::span<const Message> outgoing, std::span<const Message> incoming) {
  const std::vector<Message> out = in_matching_order(outgoing), in = in_matching_order(incoming);
#if GRIDSOLVE_HAVE_NCCL
  if (nccl_) {
    const ncclComm_t c = static_cast<ncclComm_t>(comm_);
    const cudaStream_t stream = cuda::exec_stream();
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (const Message& m : out)
      check_nccl(ncclSend(m.bytes.data(), m.bytes.size(), ncclUint8, m.peer, c, stream),
                 "ncclSend");
    for (const Message& m : in)
      check_nccl(ncclRecv(m.bytes.data(), m.bytes.size(), ncclUint8, m.peer, c, stream),
                 "ncclRecv");
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    return;
  }
#endif
  // Staged: device -> host, MPI, host -> device (copy_bytes waits for the queued kernels).
  std::vector<std::vector<std::byte>> out_host(out.size()), in_host(in.size());
  std::vector<Message> host_out(out), host_in(in);
  for (std::size_t m = 0; m < out.size(); ++m) {
    out_host[m].resize(out[m].bytes.size());
    copy_bytes(out_host[m].data(), Device::cpu, out[m].bytes.data(), Device::cuda,
               out[m].bytes.size());
    host_out[m].bytes = out_host[m];
  }
  for (std::size_t m = 0; m < in.size(); ++m) {
    in_host[m].resize(in[m].bytes.size());
    host_in[m].bytes = in_host[m];
  }
  Communicator::world().exchange(host_out, host_in);
  for (std::size_t m = 0; m < in.size(); ++m)
    copy_bytes(in[m].bytes.data(), Device::cuda, in_host[m].data(), Device::cpu,
               in[m].bytes.size());
}

void DeviceLink::sum(std::span<double> values) {
  if (values.empty()) return;
#if GRIDSOLVE_HAVE_NCCL
  if (nccl_) {
    check_nccl(ncclAllReduce(values.data(), values.data(), values.size(), ncclFloat64, ncclSum,
                             static_cast<ncclComm_t>(comm_), cuda::exec_stream()),
               "ncclAllReduce");
    return;
  }
#endif
  std::vector<double> host(values.size());
  copy_bytes(host.data(), Device::cpu, values.data(), Device::cuda, values.size_bytes());
  Communicator::world().sum(std::span<double>(host));
  copy_bytes(values.data(), Device::cuda, host.data(), Device::cpu, values.size_bytes());
}

LinkTraffic& link_traffic() {
  static LinkTraffic t;
  return t;
}

void exchange_over_ranks(Device d, std::span<const Message> outgoing,
                         std::span<const Message> incoming) {
  LinkTraffic& traffic = link_traffic();
  ++traffic.exchanges;
  for (const Message& m : outgoing) traffic.bytes_sent += std::int64_t(m.bytes.size());
  if (d == Device::cpu)
    Communicator::world().exchange(outgoing, incoming);
  else
    DeviceLink::world().exchange(outgoing, incoming);
}

void sum_over_ranks(Device d, std::span<double> values) {
  if (Communicator::world().size() == 1) return;
  ++link_traffic().all_reduces;
  if (d == Device::cpu)
    Communicator::world().sum(values);
  else
    DeviceLink::world().sum(values);
}

}  // namespace gridsolve
