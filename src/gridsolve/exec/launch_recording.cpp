// LaunchRecording: CUDA stream capture of the exec stream into a graph, replayed whole.
#include "gridsolve/exec/launch_recording.hpp"

#if GRIDSOLVE_HAVE_CUDA
#include <cuda_runtime.h>

#include "gridsolve/exec/cuda_check.hpp"
#endif

namespace gridsolve {

struct LaunchRecording::Graph {
  const void* key0 = nullptr;
  const void* key1 = nullptr;
  bool stale = false;  // reset(): record again, then update this instance in place
#if GRIDSOLVE_HAVE_CUDA
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec) cudaGraphExecDestroy(exec);
  }
#endif
};

LaunchRecording::LaunchRecording() = default;
LaunchRecording::~LaunchRecording() = default;
LaunchRecording::LaunchRecording(LaunchRecording&&) noexcept = default;
LaunchRecording& LaunchRecording::operator=(LaunchRecording&&) noexcept = default;

void LaunchRecording::reset() {
  if (graph_) graph_->stale = true;
}

bool LaunchRecording::recorded() const {
  return graph_ != nullptr && !graph_->stale;
}

void LaunchRecording::run(Device d, const void* key0, const void* key1,
                          const std::function<void()>& body) {
#if GRIDSOLVE_HAVE_CUDA
  if (d == Device::cuda && !unavailable_) {
    if (!graph_ || graph_->stale || graph_->key0 != key0 || graph_->key1 != key1) {
      const cudaStream_t stream = cudaStreamPerThread;  // the exec stream
      cuda::check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
                  "graph capture start");
      cudaGraph_t graph = nullptr;
      try {
        body();
      } catch (...) {
        cudaStreamEndCapture(stream, &graph);
        if (graph) cudaGraphDestroy(graph);
        cudaGetLastError();
        graph_.reset();
        throw;
      }
      const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
      cudaError_t made = ended == cudaSuccess && graph ? cudaSuccess
                         : ended == cudaSuccess        ? cudaErrorUnknown
                                                       : ended;
      // The same launches with new arguments (new coefficients, a new step length, other
      // fields): the instance takes them in place, far cheaper than instantiating anew.
      bool updated = false;
      if (made == cudaSuccess && graph_ && graph_->exec) {
        cudaGraphExecUpdateResultInfo info{};
        updated = cudaGraphExecUpdate(graph_->exec, graph, &info) == cudaSuccess;
        if (!updated) cudaGetLastError();
      }
      if (made == cudaSuccess && !updated) {
        auto g = std::make_unique<Graph>();
        made = cudaGraphInstantiate(&g->exec, graph, 0);
        if (made == cudaSuccess) graph_ = std::move(g);
      }
      if (graph) cudaGraphDestroy(graph);
      if (made != cudaSuccess) {
        // Something in the body cannot be recorded: run it directly from now on.
        cudaGetLastError();
        graph_.reset();
        unavailable_ = true;
        body();
        return;
      }
      graph_->key0 = key0;
      graph_->key1 = key1;
      graph_->stale = false;
    }
    cuda::check(cudaGraphLaunch(graph_->exec, cudaStreamPerThread), "graph launch");
    return;
  }
#else
  (void)key0;
  (void)key1;
#endif
  (void)d;
  body();
}

}  // namespace gridsolve
