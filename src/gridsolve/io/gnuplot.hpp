// Gnuplot as a plotting back end: find it, run a generated script, report what failed.
#pragma once
#include <string>

namespace gridsolve {

// The gnuplot executable on PATH, or empty when there is none.
std::string find_gnuplot();

// Runs `gnuplot script` in `dir`; returns an empty string on success, else what went
// wrong (gnuplot missing, or its error output).
std::string run_gnuplot(const std::string& dir, const std::string& script);

// `text` quoted for a gnuplot string literal ('...').
std::string gnuplot_quote(const std::string& text);

}  // namespace gridsolve
