// The shared TOML reader: input bounds, parsing, and typed access with precise messages.
#include "gridsolve/io/toml_reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"

namespace gridsolve {

std::string describe(const toml::node& n) {
  if (const auto* s = n.as_string()) return fmt::format("a string (\"{}\")", printable(s->get()));
  if (const auto* i = n.as_integer()) return fmt::format("an integer ({})", i->get());
  if (const auto* f = n.as_floating_point()) return fmt::format("a float ({})", f->get());
  if (const auto* b = n.as_boolean()) return fmt::format("a boolean ({})", b->get());
  if (n.is_table()) return "a table";
  if (n.is_array()) return "an array";
  return "a date or time";
}

namespace {

// Walks the text as TOML's lexer would at the level of strings, comments, brackets and
// keys, and refuses nesting (arrays, inline tables, dotted keys, table headers) deeper
// than `limit`: the parser recurses once per level, so a 40,000-level key would exhaust
// the stack inside it.
void check_nesting(std::string_view text, int limit, const std::string& file) {
  std::vector<char> open;  // '[' or '{' (a header's '[' is not pushed)
  bool key_context = true, in_header = false, in_comment = false;
  int dots = 0, line = 1;
  auto refuse = [&](const char* what) {
    throw Error(
        fmt::format("config '{}', line {}: {} nested deeper than {} levels; a settings "
                    "file needs far fewer",
                    file, line, what, limit));
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      in_comment = false;
      if (open.empty() || open.back() == '{') key_context = open.empty(), dots = 0;
      in_header = false;
      continue;
    }
    if (in_comment) continue;
    if (c == '#') {
      in_comment = true;
      continue;
    }
    if (c == '"' || c == '\'') {  // skip a string: basic, literal, or multi-line
      const bool triple = text.substr(i, 3) == std::string_view(c == '"' ? "\"\"\"" : "'''");
      const std::string_view close = triple ? text.substr(i, 3) : text.substr(i, 1);
      std::size_t j = i + close.size();
      while (j < text.size()) {
        if (c == '"' && text[j] == '\\') {
          j += 2;
          continue;
        }
        if (text.substr(j, close.size()) == close) break;
        if (text[j] == '\n') {
          if (!triple) break;  // the parser reports the unterminated string
          ++line;
        }
        ++j;
      }
      i = std::min(j + close.size() - 1, text.size());
      continue;
    }
    if (key_context) {
      if (c == '.' && ++dots > limit) refuse("a dotted key");
      if (c == '=') key_context = false, dots = 0;
      if (c == '[' && open.empty() && !in_header) {
        in_header = true;
        continue;
      }
      if (c == ']' && in_header) {
        key_context = false;
        dots = 0;
      }
      if (c != '{' && c != '}') continue;
    }
    if (c == '[' || c == '{') {
      open.push_back(c);
      if (int(open.size()) > limit) refuse("arrays or inline tables");
      key_context = c == '{';
      dots = 0;
    } else if ((c == ']' || c == '}') && !open.empty()) {
      open.pop_back();
    } else if (c == ',' && !open.empty() && open.back() == '{') {
      key_context = true;
      dots = 0;
    }
  }
}

}  // namespace

std::string join_key(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

TomlReader::TomlReader(std::string_view text, std::string source_name)
    : file_(std::move(source_name)) {
  if (text.size() > max_bytes)
    throw Error(fmt::format("config '{}' is larger than {} bytes; that is not a settings file",
                            printable(file_), max_bytes));
  check_nesting(text, max_depth, printable(file_));
  try {
    root_ = toml::parse(text, file_);
  } catch (const toml::parse_error& e) {
    throw Error(fmt::format("config '{}', line {}, column {}: TOML syntax error: {}",
                            printable(file_), e.source().begin.line, e.source().begin.column,
                            printable(e.description())));
  }
}

TomlReader TomlReader::from_file(const std::string& path) {
  return TomlReader(read_input_file(path, max_bytes, "config"), path);
}

void TomlReader::fail(const toml::node* at, const std::string& message) const {
  // Keys and strings may hold any character TOML can escape, NUL included: escaped here,
  // so a message is never cut short or steers the terminal.
  if (at && at->source().begin.line > 0)
    throw Error(fmt::format("config '{}', line {}: {}", printable(file_), at->source().begin.line,
                            printable(message)));
  throw Error(fmt::format("config '{}': {}", printable(file_), printable(message)));
}

void TomlReader::only_keys(const toml::table& t, const std::string& path,
                           const Names& allowed) const {
  for (const auto& [key, node] : t) {
    const std::string_view k = key.str();
    if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
    const std::string where = path.empty()                          ? "at the top level"
                              : path.find('[') != std::string::npos ? "in " + path
                                                                    : "in [" + path + "]";
    const bool odd = printable(k) != k;
    fail(&node, fmt::format("unknown key '{}' {}{}{}; valid keys: {}", printable(join_key(path, k)),
                            where,
                            odd ? " (it holds control characters, shown escaped)" : "",
                            did_you_mean(k, allowed), fmt::join(allowed, ", ")));
  }
}

const toml::table* TomlReader::table(const toml::table& parent, std::string_view key,
                                     const std::string& path) const {
  const toml::node* n = parent.get(key);
  if (!n) return nullptr;
  if (!n->is_table())
    fail(n,
         fmt::format("'{0}' must be a table ([{0}]), got {1}", join_key(path, key), describe(*n)));
  return n->as_table();
}

std::vector<const toml::table*> TomlReader::tables(const toml::table& parent, std::string_view key,
                                                   const std::string& path) const {
  std::vector<const toml::table*> out;
  const toml::node* n = parent.get(key);
  if (!n) return out;
  const toml::array* a = n->as_array();
  if (!a || (!a->empty() && !a->is_array_of_tables()))
    fail(n, fmt::format("'{0}' must be written as [[{0}]] tables, got {1}", join_key(path, key),
                        a ? "an array of other values" : describe(*n)));
  for (const toml::node& e : *a) out.push_back(e.as_table());
  return out;
}

std::optional<double> TomlReader::number(const toml::table& t, std::string_view key,
                                         const std::string& path) const {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  return number_value(*n, join_key(path, key));
}

double TomlReader::number_value(const toml::node& n, const std::string& name) const {
  double v = 0;
  if (const auto* i = n.as_integer())
    v = double(i->get());
  else if (const auto* f = n.as_floating_point())
    v = f->get();
  else
    fail(&n, fmt::format("{} must be a number, got {}", name, describe(n)));
  if (!std::isfinite(v))
    fail(&n, fmt::format("{} must be a finite number, got {}", name, number_text(v)));
  return v;
}

std::optional<std::int64_t> TomlReader::integer(const toml::table& t, std::string_view key,
                                                const std::string& path, std::int64_t lo,
                                                std::int64_t hi) const {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  return integer_value(*n, join_key(path, key), lo, hi);
}

std::int64_t TomlReader::integer_value(const toml::node& n, const std::string& name,
                                       std::int64_t lo, std::int64_t hi) const {
  std::optional<std::int64_t> v;
  if (const auto* i = n.as_integer()) v = i->get();
  if (const auto* f = n.as_floating_point()) {
    const double d = f->get();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9e18) v = std::int64_t(d);
  }
  if (!v) fail(&n, fmt::format("{} must be an integer, got {}", name, describe(n)));
  if (*v < lo || *v > hi) fail(&n, fmt::format("{} must be in [{}, {}], got {}", name, lo, hi, *v));
  return *v;
}

std::optional<std::string> TomlReader::string(const toml::table& t, std::string_view key,
                                              const std::string& path) const {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  const auto* s = n->as_string();
  if (!s) fail(n, fmt::format("{} must be a string, got {}", join_key(path, key), describe(*n)));
  return s->get();
}

std::optional<std::string> TomlReader::choice(const toml::table& t, std::string_view key,
                                              const std::string& path, const Names& choices) const {
  std::optional<std::string> s = string(t, key, path);
  if (s && std::find(choices.begin(), choices.end(), *s) == choices.end())
    fail(t.get(key),
         fmt::format("{} must be one of {}; got '{}'{}", join_key(path, key),
                     fmt::join(choices, ", "), printable(*s), did_you_mean(*s, choices)));
  return s;
}

std::optional<std::vector<std::string>> TomlReader::choices(const toml::table& t,
                                                            std::string_view key,
                                                            const std::string& path,
                                                            const Names& choices) const {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  const std::string name = join_key(path, key);
  const auto* a = n->as_array();
  if (!a)
    fail(n, fmt::format("{} must be an array of names ({}), got {}", name, fmt::join(choices, ", "),
                        describe(*n)));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < a->size(); ++i) {
    const toml::node& e = *a->get(i);
    const auto* v = e.as_string();
    if (!v) fail(&e, fmt::format("{}[{}] must be a string, got {}", name, i, describe(e)));
    const std::string s = v->get();
    if (std::find(choices.begin(), choices.end(), s) == choices.end())
      fail(&e, fmt::format("{}[{}] must be one of {}; got '{}'{}", name, i,
                           fmt::join(choices, ", "), printable(s), did_you_mean(s, choices)));
    if (std::find(out.begin(), out.end(), s) != out.end())
      fail(&e, fmt::format("{} names '{}' twice", name, s));
    out.push_back(s);
  }
  return out;
}

std::optional<bool> TomlReader::boolean(const toml::table& t, std::string_view key,
                                        const std::string& path) const {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  const auto* b = n->as_boolean();
  if (!b)
    fail(n, fmt::format("{} must be true or false, got {}", join_key(path, key), describe(*n)));
  return b->get();
}

std::optional<Expression> TomlReader::expression(const toml::table& t, std::string_view key,
                                                 const std::string& path) const {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  const std::string name = join_key(path, key);
  if (n->is_integer() || n->is_floating_point()) return Expression::value(number_value(*n, name));
  const auto* s = n->as_string();
  if (!s)
    fail(n, fmt::format("{} must be a number or a formula string in x, y, z (e.g. \"1 + x*y\"), "
                        "got {}",
                        name, describe(*n)));
  if (s->get().find_first_not_of(" \t") == std::string::npos)
    fail(n, fmt::format("{} is an empty formula; give a number or a formula in x, y, z", name));
  try {
    Expression e = Expression::parse(s->get());
    if (e.is_constant() && !std::isfinite(e.constant))
      fail(n, fmt::format("{} = '{}' is {}, not a finite number", name, printable(s->get()),
                          number_text(e.constant)));
    return e;
  } catch (const Error& e) {
    if (std::string_view(e.what()).starts_with("config '")) throw;
    fail(n, fmt::format("{}: {}", name, e.what()));
  }
}

std::optional<std::array<double, 3>> TomlReader::vector(const toml::table& t, std::string_view key,
                                                        const std::string& path, int dims) const {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  const toml::array* a = sized_array(*n, join_key(path, key), dims, "numbers");
  std::array<double, 3> v{0, 0, 0};
  for (int i = 0; i < dims; ++i)
    v[i] = number_value(*a->get(std::size_t(i)), fmt::format("{}[{}]", join_key(path, key), i));
  return v;
}

std::optional<std::vector<double>> TomlReader::numbers(const toml::table& t, std::string_view key,
                                                       const std::string& path) const {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  const std::string name = join_key(path, key);
  const auto* a = n->as_array();
  if (!a || a->empty())
    fail(n, fmt::format("{} must be a non-empty array of numbers, got {}", name, describe(*n)));
  std::vector<double> out;
  for (std::size_t i = 0; i < a->size(); ++i)
    out.push_back(number_value(*a->get(i), fmt::format("{}[{}]", name, i)));
  return out;
}

const toml::array* TomlReader::sized_array(const toml::node& n, const std::string& name, int dims,
                                           const char* what) const {
  const toml::array* a = n.as_array();
  if (!a)
    fail(&n, fmt::format("{} must be an array of {} {} (one per axis), got {}", name, dims, what,
                         describe(n)));
  if (int(a->size()) != dims)
    fail(&n, fmt::format("{} has {} values; a {}D grid needs {} (one per axis)", name, a->size(),
                         dims, dims));
  return a;
}

}  // namespace gridsolve
