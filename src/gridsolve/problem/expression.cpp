#include "gridsolve/problem/expression.hpp"

#include <fmt/format.h>
#include <muParser.h>

#include <charconv>
#include <cmath>
#include <memory>
#include <numbers>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"

namespace gridsolve {

Expression Expression::value(double v) {
  Expression e;
  e.constant = v;
  e.text = fmt::format("{}", v);
  return e;
}

Expression Expression::from(ScalarFunction f, std::string text) {
  Expression e;
  e.function = std::move(f);
  e.text = std::move(text);
  return e;
}

namespace {
// One parser per formula: muParser binds variables by address, so they live beside it.
struct CompiledFormula {
  mu::Parser parser;
  double x = 0, y = 0, z = 0;
};
}  // namespace

// One expression only: muParser would take "x = 5" as an assignment and "1,5" as two
// results (keeping the last), so a typo would run as a different formula.
void require_one_expression(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '=') continue;
    const char before = i > 0 ? text[i - 1] : ' ';
    const char after = i + 1 < text.size() ? text[i + 1] : ' ';
    const bool comparison =
        after == '=' || before == '=' || before == '<' || before == '>' || before == '!';
    if (!comparison)
      throw Error(
          fmt::format("malformed formula '{}': '=' assigns in muParser; a formula is one "
                      "expression (compare with '==')",
                      printable(text)));
  }
}

void require_one_result(const std::string& text, int results) {
  if (results != 1)
    throw Error(
        fmt::format("malformed formula '{}': it holds {} comma-separated expressions; give "
                    "one (decimal numbers take a point: 1.5)",
                    printable(text), results));
}

Expression Expression::parse(const std::string& text) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  while (first < last && *first == ' ') ++first;
  while (last > first && last[-1] == ' ') --last;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec == std::errc() && ptr == last && first != last) {
    Expression e = value(v);
    e.text = text;
    return e;
  }
  require_one_expression(text);
  auto f = std::make_shared<CompiledFormula>();
  double first_value = 0;
  try {
    f->parser.DefineVar("x", &f->x);
    f->parser.DefineVar("y", &f->y);
    f->parser.DefineVar("z", &f->z);
    f->parser.DefineConst("pi", std::numbers::pi);
    f->parser.DefineConst("e", std::numbers::e);
    f->parser.SetExpr(text);
    first_value = f->parser.Eval();  // parse now: errors surface at load time, not mid-assembly
  } catch (const mu::Parser::exception_type& ex) {
    throw Error(fmt::format("malformed formula '{}': {} (variables are x, y, z; constants pi, e)",
                            printable(text), printable(ex.GetMsg())));
  }
  require_one_result(text, f->parser.GetNumResults());
  if (f->parser.GetUsedVar().empty()) {
    // A constant written as a formula ("5/2", "2*pi") is a constant: solvers that need
    // constant coefficients take it, and it evaluates without the parser.
    Expression e = value(first_value);
    e.text = text;
    return e;
  }
  Expression e = from(
      [f](double x, double y, double z) {
        f->x = x;
        f->y = y;
        f->z = z;
        return f->parser.Eval();
      },
      text);
  e.concurrent = false;
  return e;
}

}  // namespace gridsolve
