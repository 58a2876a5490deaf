// Checks on command-line text that CLI11's conversions would let through.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace gridsolve::cli {

// For options held in unsigned integers: CLI11 reads "-1" into one as 2^64 - 1, so the
// text is refused before the conversion.
inline CLI::Validator not_negative() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::size_t first = text.find_first_not_of(" \t");
        if (first != std::string::npos && text[first] == '-')
          return "must not be negative, got " + text;
        return "";
      },
      "NONNEGATIVE");
}

}  // namespace gridsolve::cli
