// TomlReader: the one TOML reader every command uses. It bounds the input before
// parsing (size, nesting), and its typed accessors accept the same types everywhere
// and fail with messages naming the file, the full key and the line.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "gridsolve/io/input_file.hpp"
#include "gridsolve/problem/expression.hpp"

namespace gridsolve {

class TomlReader {
 public:
  using Names = std::vector<std::string_view>;

  // Problem and design files are a few kilobytes; 1 MiB leaves room for comments and
  // long formulas while refusing data that is not a settings file.
  static constexpr std::size_t max_bytes = std::size_t(1) << 20;
  // Tables, arrays and dotted keys nested deeper than this are refused before the parser
  // (which recurses per level) sees them.
  static constexpr int max_depth = 64;

  // Checks the bounds, parses, and keeps the document. `source_name` stands for the file
  // in messages. Throws Error on oversized or too deeply nested text and on TOML syntax.
  TomlReader(std::string_view text, std::string source_name);
  static TomlReader from_file(const std::string& path);

  const toml::table& root() const { return root_; }
  const std::string& file() const { return file_; }

  [[noreturn]] void fail(const toml::node* at, const std::string& message) const;

  // Refuses keys outside `allowed`, with a "did you mean" hint; `path` is the table's
  // full key ("" at the top level).
  void only_keys(const toml::table& t, const std::string& path, const Names& allowed) const;

  // A sub-table, or nullptr when absent; anything else under the key is an error.
  const toml::table* table(const toml::table& parent, std::string_view key,
                           const std::string& path) const;

  // The tables of an array of tables ([[key]]); empty when absent. A single table, or an
  // array of anything else, is an error: it would otherwise be read as no entries.
  std::vector<const toml::table*> tables(const toml::table& parent, std::string_view key,
                                         const std::string& path) const;

  // Finite numbers; integers are accepted as numbers.
  std::optional<double> number(const toml::table& t, std::string_view key,
                               const std::string& path) const;
  double number_value(const toml::node& n, const std::string& name) const;
  // Integers in [lo, hi]; integral floats (1e5) are accepted: people write counts so.
  std::optional<std::int64_t> integer(const toml::table& t, std::string_view key,
                                      const std::string& path, std::int64_t lo,
                                      std::int64_t hi) const;
  std::int64_t integer_value(const toml::node& n, const std::string& name, std::int64_t lo,
                             std::int64_t hi) const;
  std::optional<std::string> string(const toml::table& t, std::string_view key,
                                    const std::string& path) const;
  // A string from `choices` (a near miss gets a hint).
  std::optional<std::string> choice(const toml::table& t, std::string_view key,
                                    const std::string& path, const Names& choices) const;
  // An array of strings, each from `choices`, none twice (an empty array is allowed).
  std::optional<std::vector<std::string>> choices(const toml::table& t, std::string_view key,
                                                  const std::string& path,
                                                  const Names& choices) const;
  std::optional<bool> boolean(const toml::table& t, std::string_view key,
                              const std::string& path) const;
  // A number or a formula string in x, y, z.
  std::optional<Expression> expression(const toml::table& t, std::string_view key,
                                       const std::string& path) const;
  // One number per axis: x, y (, z).
  std::optional<std::array<double, 3>> vector(const toml::table& t, std::string_view key,
                                              const std::string& path, int dims) const;
  // A non-empty array of finite numbers.
  std::optional<std::vector<double>> numbers(const toml::table& t, std::string_view key,
                                             const std::string& path) const;
  const toml::array* sized_array(const toml::node& n, const std::string& name, int dims,
                                 const char* what) const;

 private:
  std::string file_;
  toml::table root_;
};

// The value as the user wrote it, so "expected a number, got a string (\"1e-8\")"
// shows what to change.
std::string describe(const toml::node& n);

// "solver.tolerance" from "solver" and "tolerance".
std::string join_key(const std::string& path, std::string_view key);

}  // namespace gridsolve
