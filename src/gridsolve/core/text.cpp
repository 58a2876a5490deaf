// Spelling hints and terminal-safe text.
#include "gridsolve/core/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gridsolve {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string closest_name(std::string_view word, const std::vector<std::string_view>& candidates) {
  if (word.empty()) return {};
  std::string_view best;
  std::size_t best_distance = 3;  // farther than this is not a typo but another word
  for (std::string_view c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance && d < std::max<std::size_t>(c.size(), 2)) best_distance = d, best = c;
  }
  // Abbreviations ("max_iter") are far in edit distance but obvious as prefixes.
  if (best.empty() && word.size() >= 3)
    for (std::string_view c : candidates)
      if (c.substr(0, word.size()) == word) return std::string(c);
  return std::string(best);
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::string best = closest_name(word, candidates);
  return best.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", best);
}

std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  return fmt::format("{}", v);
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
      out += char(c);
      continue;
    }
    // Keep well-formed UTF-8 sequences (non-ASCII names are fine); escape the rest,
    // C1 controls (U+0080..U+009F, which some terminals obey) included.
    int len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (c >= 0xf5) len = 0;
    bool ok = len > 0 && i + std::size_t(len) <= text.size();
    for (int k = 1; ok && k < len; ++k)
      ok = (static_cast<unsigned char>(text[i + std::size_t(k)]) & 0xc0) == 0x80;
    if (ok && len == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0) ok = false;
    if (ok) {
      out.append(text.substr(i, std::size_t(len)));
      i += std::size_t(len) - 1;
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return out;
}

}  // namespace gridsolve
