// LaunchRecording: a fixed sequence of exec-layer launches recorded once and replayed as
// one CUDA graph, for loops of many small kernels (a multigrid cycle) whose cost is
// mostly launching them. On the CPU, or where recording is not possible, it runs the body.
#pragma once
#include <functional>
#include <memory>

#include "gridsolve/exec/device.hpp"

namespace gridsolve {

class LaunchRecording {
 public:
  LaunchRecording();
  ~LaunchRecording();
  LaunchRecording(LaunchRecording&&) noexcept;
  LaunchRecording& operator=(LaunchRecording&&) noexcept;

  // Runs `body` on device d. On the GPU the first run records the launches `body` makes
  // on the exec stream (it must make no host synchronization and read nothing back) and
  // replays the recording; later runs with the same keys replay it without calling
  // `body`. The keys name what the recorded arguments point at (the fields the body
  // reads and writes): other keys record again. A new recording of the same launches
  // (other arguments) updates the replayed instance in place rather than making another.
  void run(Device d, const void* key0, const void* key1, const std::function<void()>& body);
  // The next run records again (the body's arguments changed: new coefficients, new
  // fields, a new step length).
  void reset();
  bool recorded() const;

 private:
  struct Graph;
  std::unique_ptr<Graph> graph_;
  bool unavailable_ = false;  // recording failed once: run the body directly from then on
};

}  // namespace gridsolve
