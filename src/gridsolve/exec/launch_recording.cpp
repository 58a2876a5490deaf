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
  graph_.reset();
}

bool LaunchRecording::recorded() const {
  return graph_ != nullptr;
}

void LaunchRecording::run(Device d, const void* key0, const void* key1,
                          const std::function<void()>& body) {
#if GRIDSOLVE_HAVE_CUDA
  if (d == Device::cuda && !unavailable_) {
    if (!graph_ || graph_->key0 != key0 || graph_->key1 != key1) {
      graph_.reset();
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
        throw;
      }
      const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
      auto g = std::make_unique<Graph>();
      const cudaError_t made = ended == cudaSuccess && graph
                                   ? cudaGraphInstantiate(&g->exec, graph, 0)
                                   : (ended == cudaSuccess ? cudaErrorUnknown : ended);
      if (graph) cudaGraphDestroy(graph);
      if (made != cudaSuccess) {
        // Something in the body cannot be recorded: run it directly from now on.
        cudaGetLastError();
        unavailable_ = true;
        body();
        return;
      }
      g->key0 = key0;
      g->key1 = key1;
      graph_ = std::move(g);
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
