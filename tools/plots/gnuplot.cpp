// Runs gnuplot on a plot's source (plots.hpp) in a temporary directory and returns the image.
#include "tools/plots/gnuplot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "common/file_write.hpp"

extern char** environ;

namespace collsel::plots {

namespace fs = std::filesystem;

std::string terminal_preamble(ImageFormat format, int width, int height, std::string_view output) {
  // noenhanced: algorithm names are full of '_', which enhanced text would turn into subscripts.
  const std::string terminal =
      format == ImageFormat::png
          ? fmt::format("set terminal pngcairo size {},{} font 'sans,10' background rgb "
                        "'#ffffff' noenhanced\n",
                        width, height)
          : fmt::format("set terminal svg size {},{} font 'sans,12' background rgb '#ffffff' "
                        "noenhanced rounded\n",
                        width, height);
  return "set encoding utf8\n" + terminal + fmt::format("set output {}\n", gnuplot_string(output));
}

namespace {

// A fresh private directory, removed with its contents when the object goes.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "collsel-plot-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;  // a failed clean-up must not turn a drawn plot into an error
    if (!path_.empty()) fs::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// gnuplot's diagnosis, one line: the first line that names an error (they look like
// `"plot.gp" line 12: undefined variable: foo`), else the last non-empty line.
std::string first_error_line(const std::string& log) {
  std::istringstream in(log);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t^") == std::string::npos) continue;
    if (line.find("line ") != std::string::npos && line.find(':') != std::string::npos) {
      return line;
    }
    last = line;
  }
  return last;
}

}  // namespace

Rendered render(const PlotSource& source, ImageFormat format, const std::string& gnuplot) {
  Rendered out;
  if (!source.empty_reason.empty()) {
    out.error = source.empty_reason;
    return out;
  }
  const ScratchDir dir;
  if (dir.path().empty()) {
    out.error = fmt::format("cannot create a temporary directory in {} ({})",
                            fs::temp_directory_path().string(), std::strerror(errno));
    return out;
  }
  const std::string image = fmt::format("plot.{}", image_extension(format));
  bool written = common::write_file(dir.path() / "plot.gp",
                            terminal_preamble(format, source.width, source.height, image) +
                                source.script);
  for (const auto& d : source.data) {
    written = written && common::write_file(dir.path() / d.name, d.text);
  }
  if (!written) {
    out.error = fmt::format("cannot write gnuplot's input in {}", dir.path().string());
    return out;
  }

  // posix_spawn rather than system(): no shell to quote for, and ENOENT tells a missing program
  // apart from one that failed.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, dir.path().c_str());
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "gnuplot.log",
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::string arg0 = gnuplot;
  std::string arg1 = "plot.gp";
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  // HOME is the scratch directory: gnuplot runs the user's ~/.gnuplot at start-up, and settings
  // from there (another font, `set style ...`) would change or break the report's plots.
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "HOME=", 5) != 0) env_text.emplace_back(*e);
  }
  env_text.push_back("HOME=" + dir.path().string());
  std::vector<char*> env;
  for (std::string& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  pid_t pid = 0;
  const int spawn_error =
      ::posix_spawnp(&pid, gnuplot.c_str(), &actions, nullptr, argv, env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) {
    out.gnuplot_missing = spawn_error == ENOENT || spawn_error == EACCES;
    out.error = out.gnuplot_missing
                    ? std::string(kInstallGnuplotHint)
                    : fmt::format("cannot run {}: {}", gnuplot, std::strerror(spawn_error));
    return out;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string log = read_file(dir.path() / "gnuplot.log");
  // glibc's posix_spawnp reports a program it cannot exec as exit status 127 of the child.
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !fs::exists(dir.path() / image)) {
    out.gnuplot_missing = true;
    out.error = std::string(kInstallGnuplotHint);
    return out;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    out.error = fmt::format("gnuplot failed drawing the {} plot: {}", plot_kind_name(source.kind),
                            first_error_line(log));
    return out;
  }
  out.image = read_file(dir.path() / image);
  if (out.image.empty()) {
    out.error = fmt::format("gnuplot drew nothing for the {} plot: {}",
                            plot_kind_name(source.kind), first_error_line(log));
  }
  return out;
}

}  // namespace collsel::plots
