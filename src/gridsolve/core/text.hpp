// Text for messages: "did you mean" hints for misspelt names, and user text made safe
// to print on a terminal.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace gridsolve {

// Levenshtein distance between two words.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate a misspelt `word` most likely meant: within two edits, or one that
// `word` abbreviates (at least 3 characters); empty when none is close.
std::string closest_name(std::string_view word, const std::vector<std::string_view>& candidates);

// " (did you mean 'x'?)" for the closest candidate, or "" when none is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates);

// A number for messages: NaN always as "nan" (fmt writes a negative NaN as "-nan").
std::string number_text(double v);

// `text` with control characters (terminal escape sequences among them) and invalid
// bytes written as \xNN, so that a name from a file cannot drive the terminal.
// Newlines and tabs are kept.
std::string printable(std::string_view text);

}  // namespace gridsolve
