// StopCondition: a muParser formula over the run's time, <m> and largest torque.
#include "gridsolve/apps/micromag/stop_condition.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <muParser.h>

#include <cmath>
#include <numbers>

#include "gridsolve/core/error.hpp"
#include "gridsolve/problem/expression.hpp"

namespace gridsolve::micromag {

struct StopCondition::Impl {
  std::string formula;
  RunState vars;  // the parser reads its variables from here
  mu::Parser parser;
  bool torque = false;
};

const std::vector<std::string>& StopCondition::variables() {
  static const std::vector<std::string> names = {"t", "t_stage", "mx", "my", "mz", "max_torque"};
  return names;
}

StopCondition::StopCondition(const std::string& formula) : impl_(std::make_shared<Impl>()) {
  Impl& p = *impl_;
  p.formula = formula;
  // "mx = 0" would assign and "0, 1" yield two values: muParser runs both, so a condition
  // that says something else than it seems is refused, as field formulas are.
  require_one_expression(formula);
  try {
    p.parser.DefineVar("t", &p.vars.t);
    p.parser.DefineVar("t_stage", &p.vars.t_stage);
    p.parser.DefineVar("mx", &p.vars.mx);
    p.parser.DefineVar("my", &p.vars.my);
    p.parser.DefineVar("mz", &p.vars.mz);
    p.parser.DefineVar("max_torque", &p.vars.max_torque);
    p.parser.DefineConst("pi", std::numbers::pi);
    p.parser.SetExpr(formula);
    // Evaluating once finds syntax errors and unknown names; GetUsedVar lists the names.
    p.parser.Eval();
    require_one_result(formula, p.parser.GetNumResults());
    p.torque = p.parser.GetUsedVar().count("max_torque") > 0;
  } catch (const mu::Parser::exception_type& e) {
    throw Error(
        fmt::format("the condition '{}' is not valid: {} (a formula in {}, e.g. "
                    "\"mx < 0\" or \"max_torque < 1e-4 && t_stage > 1e-10\")",
                    formula, e.GetMsg(), fmt::join(variables(), ", ")));
  }
}

bool StopCondition::needs_torque() const {
  return impl_->torque;
}

const std::string& StopCondition::formula() const {
  return impl_->formula;
}

bool StopCondition::holds(const RunState& s) const {
  impl_->vars = s;
  double v = 0;
  try {
    v = impl_->parser.Eval();
  } catch (const mu::Parser::exception_type& e) {
    throw Error(
        fmt::format("the condition '{}' could not be evaluated: {}", impl_->formula, e.GetMsg()),
        Error::Kind::runtime);
  }
  return std::isfinite(v) && v != 0;
}

}  // namespace gridsolve::micromag
