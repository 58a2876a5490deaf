// The micromag command: reads the TOML file and runs its stages.
#include "gridsolve/cli/micromag_command.hpp"

#include <CLI/CLI.hpp>

#include "gridsolve/apps/micromag/micromag_config.hpp"
#include "gridsolve/apps/micromag/micromag_run.hpp"

namespace gridsolve::cli {

CLI::App* add_micromag_command(CLI::App& app, MicromagArguments& a) {
  CLI::App* c = app.add_subcommand(
      "micromag",
      "micromagnetics: LLG dynamics, relax and minimize with exchange, anisotropy, Zeeman and "
      "the demagnetizing field (FFT convolution), from a TOML file (docs/micromag.md)");
  c->add_option("config", a.config, "the problem file, e.g. examples/micromag/sp4_field1.toml")
      ->required();
  c->add_option("--device", a.device, "auto | cpu | cuda (overrides [solver] device)");
  c->add_option("--precision", a.precision, "float | double (overrides [solver] precision)");
  c->add_option("--out", a.out, "output folder (overrides [output] dir)");
  c->add_flag("-q,--quiet", a.quiet, "print nothing but errors");
  return c;
}

int micromag_command(const MicromagArguments& a) {
  micromag::MicromagConfig c = micromag::load_micromag_config(a.config);
  micromag::RunOverrides o;
  o.device = a.device;
  o.precision = a.precision;
  o.out = a.out;
  o.quiet = a.quiet;
  return micromag::run_micromag(std::move(c), o);
}

}  // namespace gridsolve::cli
