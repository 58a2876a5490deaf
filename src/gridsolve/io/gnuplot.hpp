// Gnuplot as a plotting back end: find it, run a generated script (time-limited), report what
// failed.
#pragma once
#include <string>

namespace gridsolve {

// The gnuplot executable on PATH, or empty when there is none.
std::string find_gnuplot();

// Runs `gnuplot script` with `dir` as its working folder (no shell: any folder name
// works, one starting with '-' included); returns an empty string on success, else what
// went wrong (gnuplot missing, its error output, or that it ran past `timeout_seconds`
// and was stopped). Write the data files first: a failed or stopped plot loses nothing.
std::string run_gnuplot(const std::string& dir, const std::string& script,
                        double timeout_seconds = 120);

// `text` quoted for a gnuplot string literal ('...').
std::string gnuplot_quote(const std::string& text);

}  // namespace gridsolve
