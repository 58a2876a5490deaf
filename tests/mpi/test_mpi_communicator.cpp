// Communicator: all-reductions, gathers, broadcasts and messages give every rank the same
// answer, for any number of ranks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gridsolve/exec/communicator.hpp"

namespace gridsolve {
namespace {

TEST(MpiCommunicator, ReductionsAgreeOnEveryRank) {
  const Communicator& comm = Communicator::world();
  const int n = comm.size(), r = comm.rank();
  EXPECT_EQ(comm.sum(double(r + 1)), n * (n + 1) / 2.0);
  EXPECT_EQ(comm.max(-double(r) + 0.5), 0.5);
  EXPECT_EQ(comm.min(double(r) * 2 - 3), -3.0);
  std::vector<double> dots{1.0 * r, 2.5, -1.0 * r * r};
  comm.sum(dots);
  double squares = 0;
  for (int q = 0; q < n; ++q) squares += q * q;
  EXPECT_EQ(dots[0], n * (n - 1) / 2.0);
  EXPECT_EQ(dots[1], 2.5 * n);
  EXPECT_EQ(dots[2], -squares);
  const double mine[2] = {double(r), 10.0 + r};
  const std::vector<double> all = comm.gather_all(mine);
  ASSERT_EQ(all.size(), std::size_t(2 * n));
  for (int q = 0; q < n; ++q) EXPECT_EQ(all[2 * q + 1], 10.0 + q);
}

TEST(MpiCommunicator, BroadcastsRootsText) {
  const Communicator& comm = Communicator::world();
  std::string text = comm.is_root() ? "the root's words, 29 letters" : "x";
  comm.broadcast(text);
  EXPECT_EQ(text, "the root's words, 29 letters");
  comm.barrier();
}

TEST(MpiCommunicator, MessagesRoundARing) {
  const Communicator& comm = Communicator::world();
  const int n = comm.size(), r = comm.rank();
  std::vector<double> out{double(r), double(r) * 3}, in(2, -1.0);
  const Message send{(r + 1) % n, 7, std::as_writable_bytes(std::span<double>(out))};
  const Message receive{(r + n - 1) % n, 7, std::as_writable_bytes(std::span<double>(in))};
  comm.exchange(std::span(&send, 1), std::span(&receive, 1));
  EXPECT_EQ(in[0], double((r + n - 1) % n));
  EXPECT_EQ(in[1], 3.0 * ((r + n - 1) % n));
}

}  // namespace
}  // namespace gridsolve
