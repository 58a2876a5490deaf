// The MPI tests' main: MPI for the whole run, GoogleTest on every rank; a test failing on
// any rank fails the run on every rank.
#include <gtest/gtest.h>

#include <cstdio>

#include "gridsolve/exec/communicator.hpp"

namespace {

// What a rank other than 0 prints: its failed checks only, naming the rank (rank 0 prints
// the usual progress, so the log is read once, not once per rank).
class FailurePrinter : public ::testing::EmptyTestEventListener {
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "rank %d: %s:%d: %s\n", gridsolve::Communicator::world().rank(),
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }
};

}  // namespace

int main(int argc, char** argv) {
  gridsolve::MpiSession mpi(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (!gridsolve::Communicator::world().is_root()) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter);
  }
  const int failed = RUN_ALL_TESTS();
  const double any = gridsolve::Communicator::world().max(double(failed));
  return any != 0 ? 1 : 0;
}
