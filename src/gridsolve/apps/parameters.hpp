// Application parameters declared once (name, unit, default, help) and read from there by
// the command line, the TOML reader and summary.json.
#pragma once
#include <cmath>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"

namespace gridsolve {

// One parameter of an application whose settings live in `S`: its TOML key (the
// command-line option is "--" + key with '_' as '-'), unit ("" when none), help text,
// and the member it sets.
template <class S>
struct Parameter {
  std::string_view key;
  std::string_view unit;
  std::string_view help;
  std::variant<double S::*, int S::*> member;
  std::string_view cli = {};  // the command-line spelling when not "--" + key

  std::string option() const {
    if (!cli.empty()) return std::string(cli);
    std::string o = "--" + std::string(key);
    for (char& c : o)
      if (c == '_') c = '-';
    return o;
  }
  // "help (unit, default 0.25)" for help texts, from the defaults in S{}.
  std::string help_text() const {
    const S defaults{};
    const std::string value =
        std::visit([&](auto m) { return fmt::format("{}", defaults.*m); }, member);
    return unit.empty() ? fmt::format("{} (default {})", help, value)
                        : fmt::format("{}, {} (default {})", help, unit, value);
  }
  double get(const S& s) const {
    return std::visit([&](auto m) { return double(s.*m); }, member);
  }
};

// Non-finite numbers are bad input whatever the parameter: NaN compares false with
// every bound, so a later range check would let it through.
template <class S>
void require_finite(const std::vector<Parameter<S>>& params, const S& s) {
  for (const Parameter<S>& p : params)
    if (const auto* m = std::get_if<double S::*>(&p.member))
      require(std::isfinite(s.**m), fmt::format("{} ({}) must be a finite number, got {}", p.key,
                                                p.option(), number_text(s.**m)));
}

// {"key": value, ...} for summary.json.
template <class S>
nlohmann::json parameters_json(const std::vector<Parameter<S>>& params, const S& s) {
  nlohmann::json j = nlohmann::json::object();
  for (const Parameter<S>& p : params)
    std::visit([&](auto m) { j[std::string(p.key)] = s.*m; }, p.member);
  return j;
}

}  // namespace gridsolve
