// The model file as a whole (models/model_file.hpp): the top level read and written section by
// section (sections.hpp), loading and saving.
#include "models/model_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "models/model_file/sections.hpp"

namespace collsel::models {
namespace {

using namespace model_file;

ModelLoad parse_root(const toml::table& root, std::string_view source) {
  ModelLoad load;
  Reader r{source, load.diagnostics};
  const Section top{root, "at the top level", kTopLevelKeys, 0};
  if (root.empty()) {
    r.error(0, "the file is empty", std::string(kRegenerate));
    return load;
  }
  warn_unknown_keys(r, top);
  if (!read_version(r, top)) return load;
  ModelFile model;
  read_string(r, top, "name", model.name);
  read_string(r, top, "description", model.description);
  if (const auto* t = read_table(r, top, "provenance")) read_provenance(r, *t, model.provenance);
  if (const auto* t = read_table(r, top, "plogp")) read_plogp(r, *t, model.plogp);
  if (const auto* t = read_table(r, top, "intra_node")) {
    plogp::Params intra;
    read_plogp(r, *t, intra, "in [intra_node]");
    if (auto reason = intra.invalid_reason(); !reason) model.intra_node = std::move(intra);
  }
  if (const auto* t = read_table(r, top, "alltoall")) model.alltoall = read_alltoall(r, *t);
  if (const auto* t = read_table(r, top, "contention")) model.contention = read_contention(r, *t);
  if (const auto* t = read_table(r, top, "logfp")) model.logfp = read_logfp(r, *t);
  if (const auto* t = read_table(r, top, "corrections")) {
    model.corrections = read_corrections(r, *t);
  }
  if (has_errors(load.diagnostics)) return load;
  // Every condition is checked above with its line; this catches a gap between the two lists.
  if (auto reason = model.plogp.invalid_reason()) {
    r.error(0, *reason, std::string(kRegenerate));
    return load;
  }
  load.model = std::move(model);
  return load;
}

}  // namespace

double ModelFile::correction(std::string_view algorithm) const {
  for (const auto& [name, factor] : corrections) {
    if (name == algorithm) return factor;
  }
  return 1.0;
}

ModelLoad parse_model(std::string_view text, std::string_view source) {
  try {
    return parse_root(toml::parse(text, source), source);
  } catch (const toml::parse_error& e) {
    ModelLoad load;
    Reader{source, load.diagnostics}.error(static_cast<int>(e.source().begin.line),
                                           fmt::format("not valid TOML: {}", e.description()),
                                           or_regenerate("fix the syntax"));
    return load;
  }
}

ModelLoad load_model_file(const std::string& path) {
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  const auto cannot_read = [&path](int err) {
    ModelLoad load;
    load.diagnostics.push_back({Diagnostic::Severity::error, path, 0,
                                fmt::format("cannot read the model file ({})", std::strerror(err)),
                                "check COLLSEL_MODEL or [model] path in the config"});
    return load;
  };
  errno = 0;
  const std::unique_ptr<std::FILE, Closer> f(std::fopen(path.c_str(), "rb"));
  if (!f) return cannot_read(errno);
  std::string text;
  char buffer[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f.get())) > 0) text.append(buffer, n);
  // A directory opens fine and fails here, with EISDIR.
  if (std::ferror(f.get())) return cannot_read(errno);
  return parse_model(text, path);
}

std::string write_model(const ModelFile& m) {
  std::string out = model_file::metadata_text(m);
  out += "\n[plogp]\n";
  out += model_file::plogp_body(m.plogp);
  if (m.intra_node) {
    out += "\n# between two ranks of one node; the selection uses [plogp] (docs/MODELS.md)\n";
    out += "[intra_node]\n";
    out += model_file::plogp_body(*m.intra_node);
  }
  if (m.alltoall) {
    out += "\n# All-to-All contention (seed 000; docs/MODELS.md, \"All-to-All (seed 000)\")\n";
    out += "[alltoall]\n";
    out += model_file::alltoall_body(*m.alltoall);
  }
  if (m.contention) {
    out += "\n# contention graphs (seeds 002, 003; docs/MODELS.md, \"Model file\")\n";
    out += "[contention]\n";
    out += model_file::contention_body(*m.contention);
  }
  if (m.logfp) {
    out += "\n# LogfP for small messages (seed 004; docs/MODELS.md, \"Model file\")\n";
    out += "[logfp]\n";
    out += model_file::logfp_body(*m.logfp);
  }
  if (!m.corrections.empty()) {
    out += "\n# per-algorithm factors on the predictions, fitted by collsel refit (docs/MODELS.md)\n";
    out += "[corrections]\n";
    out += model_file::corrections_body(m.corrections);
  }
  return out;
}

std::optional<std::string> save_model_file(const ModelFile& model, const std::string& path) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, static_cast<long>(getpid()));
  {
    std::ofstream out(tmp, std::ios::binary);
    out << write_model(model);
    if (!out.flush()) {
      const std::string why = std::strerror(errno);
      std::remove(tmp.c_str());
      return fmt::format("cannot write {} ({}); check the folder exists and is writable", tmp,
                         why);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return fmt::format("cannot rename {} to {} ({}); check the folder is writable", tmp, path,
                       why);
  }
  return std::nullopt;
}

}  // namespace collsel::models
