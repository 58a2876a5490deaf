#include "gridsolve/problem/expression.hpp"

#include <fmt/format.h>
#include <muParser.h>

#include <charconv>
#include <cmath>
#include <memory>
#include <numbers>

#include "gridsolve/core/error.hpp"

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
  auto f = std::make_shared<CompiledFormula>();
  try {
    f->parser.DefineVar("x", &f->x);
    f->parser.DefineVar("y", &f->y);
    f->parser.DefineVar("z", &f->z);
    f->parser.DefineConst("pi", std::numbers::pi);
    f->parser.SetExpr(text);
    f->parser.Eval();  // parse now, so errors surface at load time, not mid-assembly
  } catch (const mu::Parser::exception_type& ex) {
    throw Error(
        fmt::format("malformed formula '{}': {} (variables are x, y, z)", text, ex.GetMsg()));
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
