// Expression: a scalar function of position, either a constant or a formula.
#pragma once
#include <functional>
#include <string>

namespace gridsolve {

using ScalarFunction = std::function<double(double x, double y, double z)>;

// Checks shared by every muParser formula the program reads: text with an assignment
// ('=' that is not part of a comparison), and a parse with other than one result
// ("1,5"), throw Error naming the problem.
void require_one_expression(const std::string& text);
void require_one_result(const std::string& text, int results);

struct Expression {
  double constant = 0;
  ScalarFunction function;  // empty for a constant
  std::string text;         // how the user wrote it, for reports
  // Whether several threads may evaluate it at once (parsed formulas share their
  // variables with the parser, so they may not).
  bool concurrent = true;

  static Expression value(double v);
  // Parses a formula in x, y, z (muParser syntax; pi and e are defined). A number, or
  // a formula without variables ("5/2"), becomes a constant. Malformed text, an
  // assignment or several comma-separated expressions throw Error naming the problem.
  static Expression parse(const std::string& text);
  static Expression from(ScalarFunction f, std::string text);

  bool is_constant() const { return !function; }
  double operator()(double x, double y, double z) const {
    return function ? function(x, y, z) : constant;
  }
};

}  // namespace gridsolve
