// Decomposition: choosing the process grid, and the boxes and neighbours it implies.
#include "gridsolve/exec/decomposition.hpp"

#include <cstdint>
#include <limits>
#include <sstream>

#include "gridsolve/core/error.hpp"

namespace gridsolve {

namespace {

const char* const axis_names[3] = {"x", "y", "z"};

// The first value on an axis of n values split in p parts, of part c (c = p: one past
// the end). The first n % p parts hold one value more.
int part_start(int n, int p, int c) {
  const int base = n / p, extra = n % p;
  return c * base + (c < extra ? c : extra);
}

// Values two neighbouring boxes share across their faces, summed over the process grid:
// what a ghost exchange moves, per ghost layer.
std::int64_t face_values(const Box& global, const std::array<int, 3>& p) {
  std::int64_t total = 0;
  for (int a = 0; a < 3; ++a) {
    std::int64_t across = 1;
    for (int b = 0; b < 3; ++b)
      if (b != a) across *= global.extent(b);
    total += std::int64_t(p[a] - 1) * across;
  }
  return total;
}

}  // namespace

Decomposition::Decomposition(const Box& global, int dims, int ranks, std::array<bool, 3> periodic,
                             std::array<int, 3> process_grid, int min_extent)
    : global_(global), dims_(dims), ranks_(ranks), periodic_(periodic) {
  require(dims == 2 || dims == 3, "a decomposition is of a 2D or 3D grid");
  require(ranks >= 1, "a run has at least one rank, got " + std::to_string(ranks));
  require(!global.empty(), "a decomposition needs a non-empty box");
  if (dims == 2) periodic_[2] = false;
  auto fits = [&](const std::array<int, 3>& p) {
    for (int a = 0; a < 3; ++a)
      if (p[a] > 1 && global.extent(a) / p[a] < min_extent) return false;
    return true;
  };
  if (process_grid != std::array<int, 3>{0, 0, 0}) {
    for (int a = 0; a < 3; ++a)
      if (a >= dims && process_grid[a] == 0) process_grid[a] = 1;
    require(process_grid[0] >= 1 && process_grid[1] >= 1 && process_grid[2] >= 1 &&
                std::int64_t(process_grid[0]) * process_grid[1] * process_grid[2] == ranks,
            "the process grid " + std::to_string(process_grid[0]) + "x" +
                std::to_string(process_grid[1]) + "x" + std::to_string(process_grid[2]) +
                " does not hold " + std::to_string(ranks) + " ranks");
    require(dims == 3 || process_grid[2] == 1, "a 2D grid splits over ranks in x and y only");
    for (int a = 0; a < dims; ++a)
      require(process_grid[a] == 1 || global.extent(a) / process_grid[a] >= min_extent,
              std::string("the grid's ") + std::to_string(global.extent(a)) + " values in " +
                  axis_names[a] + " do not split over " + std::to_string(process_grid[a]) +
                  " ranks with at least " + std::to_string(min_extent) + " each");
    grid_ = process_grid;
    return;
  }
  // Every factorization ranks = px py pz (pz = 1 in 2D) that leaves each box wide enough;
  // the fewest shared face values wins, ties going to the first found: the fewest ranks
  // along x, so each rank keeps long contiguous x rows and packs fewer strided x faces.
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px) continue;
    for (int py = 1; py <= ranks / px; ++py) {
      if ((ranks / px) % py) continue;
      const int pz = ranks / px / py;
      if (dims == 2 && pz != 1) continue;
      const std::array<int, 3> p{px, py, pz};
      if (!fits(p)) continue;
      const std::int64_t cost = face_values(global, p);
      if (cost < best) best = cost, grid_ = p;
    }
  }
  std::ostringstream sizes;
  for (int a = 0; a < dims; ++a) sizes << (a ? "x" : "") << global.extent(a);
  require(best != std::numeric_limits<std::int64_t>::max(),
          "a grid of " + sizes.str() + " values does not split over " + std::to_string(ranks) +
              " ranks with at least " + std::to_string(min_extent) +
              " values per rank and axis; use fewer ranks or a larger grid");
}

std::array<int, 3> Decomposition::coords(int rank) const {
  require(rank >= 0 && rank < ranks_,
          "rank " + std::to_string(rank) + " of a run of " + std::to_string(ranks_));
  return {rank % grid_[0], (rank / grid_[0]) % grid_[1], rank / (grid_[0] * grid_[1])};
}

int Decomposition::rank_at(std::array<int, 3> c) const {
  return c[0] + grid_[0] * (c[1] + grid_[1] * c[2]);
}

Box Decomposition::box(int rank) const {
  const std::array<int, 3> c = coords(rank);
  Box b = global_;
  for (int a = 0; a < 3; ++a) {
    const int n = global_.extent(a);
    const std::vector<int>& s = starts_[a];
    b.lo[a] = global_.lo[a] + (s.empty() ? part_start(n, grid_[a], c[a]) : s[c[a]]);
    b.hi[a] = global_.lo[a] + (s.empty() ? part_start(n, grid_[a], c[a] + 1) : s[c[a] + 1]) - 1;
  }
  return b;
}

Decomposition Decomposition::staggered(int axis) const {
  require(axis >= 0 && axis < dims_, "staggered: the axis must be one of the grid's");
  Decomposition out = *this;
  const int n = global_.extent(axis), p = grid_[axis];
  std::vector<int> s = starts_[axis];
  if (s.empty())
    for (int c = 0; c <= p; ++c) s.push_back(part_start(n, p, c));
  s.back() = n + 1;
  out.starts_[axis] = std::move(s);
  out.global_.hi[axis] += 1;
  out.global_.centring.type[std::size_t(axis)] = IndexType::node;
  return out;
}

Decomposition Decomposition::balanced(const std::array<std::vector<double>, 3>& work,
                                      int min_extent) const {
  Decomposition out = *this;
  for (int a = 0; a < 3; ++a) {
    const int n = global_.extent(a), p = grid_[a];
    out.starts_[a].clear();
    if (p == 1 || work[a].empty()) continue;
    require(int(work[a].size()) == n, std::string("the work along ") + axis_names[a] + " has " +
                                          std::to_string(work[a].size()) + " values for " +
                                          std::to_string(n) + " indices");
    std::vector<double> before(std::size_t(n) + 1, 0.0);  // work below each index
    for (int i = 0; i < n; ++i) {
      require(work[a][std::size_t(i)] >= 0, "work is never negative");
      before[std::size_t(i) + 1] = before[std::size_t(i)] + work[a][std::size_t(i)];
    }
    const double total = before[std::size_t(n)];
    if (total <= 0) continue;  // nothing to weigh: the even split
    std::vector<int> s(std::size_t(p) + 1, 0);
    s[std::size_t(p)] = n;
    for (int c = 1; c < p; ++c) {
      // The cut nearest the c-th share of the work, leaving each part min_extent planes.
      const double target = total * double(c) / double(p);
      const int lowest = s[std::size_t(c) - 1] + min_extent, highest = n - (p - c) * min_extent;
      int cut = lowest;  // before[cut]: the work of the parts below c
      while (cut < highest && before[std::size_t(cut) + 1] <= target) ++cut;
      if (cut < highest &&
          before[std::size_t(cut) + 1] - target < target - before[std::size_t(cut)])
        ++cut;
      s[std::size_t(c)] = cut;
    }
    out.starts_[a] = std::move(s);
  }
  return out;
}

std::optional<Decomposition> Decomposition::coarsened(const std::array<int, 3>& coarse_nodes,
                                                      const std::array<bool, 3>& halved,
                                                      int min_extent) const {
  Decomposition out = *this;
  for (int a = 0; a < 3; ++a) {
    require(!halved[a] || global_.lo[a] == 0, "a coarsened decomposition needs a box from 0");
    out.global_.lo[a] = global_.lo[a];
    out.global_.hi[a] = global_.lo[a] + coarse_nodes[a] - 1;
    const int n = global_.extent(a), p = grid_[a];
    std::vector<int> s(std::size_t(p) + 1, 0);
    for (int c = 0; c <= p; ++c) {
      const int fine = starts_[a].empty() ? part_start(n, p, c) : starts_[a][std::size_t(c)];
      // The first coarse node at or above the fine start (the end: every coarse node).
      s[std::size_t(c)] = c == p ? coarse_nodes[a] : halved[a] ? (fine + 1) / 2 : fine;
      if (c > 0 && p > 1 && s[std::size_t(c)] - s[std::size_t(c) - 1] < min_extent)
        return std::nullopt;
    }
    out.starts_[a] = p > 1 ? std::move(s) : std::vector<int>{};
  }
  return out;
}

int Decomposition::neighbour(int rank, int face) const {
  const int a = face / 2, step = face % 2 ? 1 : -1;
  std::array<int, 3> c = coords(rank);
  c[a] += step;
  if (c[a] < 0 || c[a] >= grid_[a]) {
    if (!periodic_[a]) return no_rank;
    c[a] = (c[a] + grid_[a]) % grid_[a];
  }
  return rank_at(c);
}

bool Decomposition::at_global_side(int rank, int axis, int side) const {
  const int c = coords(rank)[axis];
  return side == 0 ? c == 0 : c == grid_[axis] - 1;
}

std::string Decomposition::describe() const {
  std::string s = std::to_string(grid_[0]) + "x" + std::to_string(grid_[1]);
  if (dims_ == 3) s += "x" + std::to_string(grid_[2]);
  return s;
}

std::array<int, 3> parse_ranks_grid(const std::string& text, int dims, int ranks) {
  std::array<int, 3> p{1, 1, 1};
  const std::string usage = "--ranks-grid takes " + std::string(dims == 3 ? "PxQxR" : "PxQ") +
                            " (ranks per axis: positive integers whose product is the "
                            "number of ranks, " +
                            std::to_string(ranks) + "), got '" + text + "'";
  std::size_t at = 0;
  for (int a = 0; a < dims; ++a) {
    if (a > 0) {
      require(at < text.size() && text[at] == 'x', usage);
      ++at;
    }
    const std::size_t start = at;
    std::int64_t v = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9' && v <= ranks)
      v = v * 10 + (text[at++] - '0');
    require(at > start && v >= 1 && v <= ranks, usage);
    p[a] = int(v);
  }
  require(at == text.size(), usage);
  require(std::int64_t(p[0]) * p[1] * p[2] == ranks, usage);
  return p;
}

}  // namespace gridsolve
