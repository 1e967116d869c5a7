// The gnuplot runner: a plot's data and script (plots.hpp) drawn by a gnuplot subprocess.
// gnuplot is a subprocess rather than a library: Debian's gnuplot-nox has the svg and pngcairo
// terminals and no X dependency, and a crash or a hang of it cannot take the tool down.
#pragma once

#include <string>
#include <string_view>

#include "tools/plots/plots.hpp"

namespace collsel::plots {

struct Rendered {
  std::string image;            // the SVG text or PNG bytes; empty on failure
  std::string error;            // why not, one sentence (with gnuplot's first error line)
  bool gnuplot_missing = false; // the program could not be started at all
};

// Runs `gnuplot` (a program name looked up in PATH, or a path) on the source in a fresh temporary
// directory, removed afterwards. The child's stdin is /dev/null, so a script can never wait for a
// key press.
Rendered render(const PlotSource& source, ImageFormat format, const std::string& gnuplot = "gnuplot");

// The terminal lines render() prepends (exposed for the tests and for `collsel plot --script`).
std::string terminal_preamble(ImageFormat format, int width, int height, std::string_view output);

// The one-line hint the commands print when gnuplot is missing.
inline constexpr std::string_view kInstallGnuplotHint =
    "gnuplot is not installed, so the plots were not drawn; install it with "
    "`apt-get install gnuplot-nox` (Debian) and run the command again";

}  // namespace collsel::plots
