// The top level of the model file (format_version, name, description, the sections) and
// [provenance]: what the file is and how it was made.
#include "models/model_file/sections.hpp"

#include <climits>

namespace collsel::models::model_file {
namespace {

constexpr KeySpec kProvenanceKeys[] = {
    {"command", Kind::string, false, "\"mpiexec -n 2 collsel-calibrate -o model.toml\""},
    {"date", Kind::date, false, "\"2026-11-23T07:00:00Z\""},
    {"mpi_library", Kind::string, false, "\"MPICH 4.0.2\""},
    {"hosts", Kind::strings, false, "[\"node1\", \"node2\"]"},
    {"ranks", Kind::integer, false, "2"},
    {"ranks_per_node", Kind::integer, false, "1"},
    {"duration_s", Kind::number, false, "42.5"},
    {"notes", Kind::string, false, "\"free text\""},
};

}  // namespace

// The single list of keys per table: reading, the valid-key lists of warnings and the fixes all
// come from here.
constexpr KeySpec kTopKeys[] = {
    {"format_version", Kind::integer, true, "1"},
    {"name", Kind::string, true, "\"my cluster\""},
    {"description", Kind::string, false, "\"free text\""},
    {"provenance", Kind::table, false, ""},
    {"plogp", Kind::table, true, ""},
    {"intra_node", Kind::table, false, ""},
    {"alltoall", Kind::table, false, ""},
    {"contention", Kind::table, false, ""},
    {"logfp", Kind::table, false, ""},
    {"corrections", Kind::table, false, ""},
};

const std::span<const KeySpec> kTopLevelKeys = kTopKeys;

// format_version decides how the rest reads, so a missing, mistyped or other version stops here.
bool read_version(Reader& r, const Section& top) {
  const toml::node* n = find(r, top, "format_version");
  if (n == nullptr) return false;
  const std::int64_t v = n->as_integer()->get();
  if (v == kModelFormatVersion) return true;
  r.error(
      line_of(*n),
      fmt::format("format_version = {} is not supported; this collsel reads format_version = {}", v,
                  kModelFormatVersion),
      "re-run this collsel's collsel-calibrate to regenerate the file");
  return false;
}

void read_provenance(Reader& r, const toml::table& t, Provenance& p) {
  const Section s{t, "in [provenance]", kProvenanceKeys, line_of(t)};
  warn_unknown_keys(r, s);
  read_string(r, s, "command", p.command);
  read_string(r, s, "date", p.date);
  read_string(r, s, "mpi_library", p.mpi_library);
  if (auto hosts = read_strings(r, s, "hosts"); hosts.ok) p.hosts = std::move(hosts.values);
  if (auto ranks =
          read_integer(r, s, "ranks", 0, INT_MAX, fmt::format("between 0 and {}", INT_MAX))) {
    p.ranks = static_cast<int>(*ranks);
  }
  if (auto rpn = read_integer(r, s, "ranks_per_node", 0, INT_MAX,
                              fmt::format("between 0 and {}", INT_MAX))) {
    p.ranks_per_node = static_cast<int>(*rpn);
  }
  if (const toml::node* n = find(r, s, "duration_s")) {
    p.duration_s = number_of(*n);
    if (!usable_time(p.duration_s)) bad_time(r, line_of(*n), "duration_s in [provenance]", p.duration_s);
  }
  read_string(r, s, "notes", p.notes);
}

std::string metadata_text(const ModelFile& m) {
  const Provenance& pv = m.provenance;
  std::string out;
  out += fmt::format("# collsel model file; every key is described in docs/MODELS.md\n");
  out += fmt::format("format_version = {}\n", kModelFormatVersion);
  out += fmt::format("name = {}\n", toml_string(m.name));
  out += fmt::format("description = {}\n", toml_string(m.description));
  out += "\n[provenance]\n";
  out += fmt::format("command = {}\n", toml_string(pv.command));
  out += fmt::format("date = {}\n", toml_string(pv.date));
  out += fmt::format("mpi_library = {}\n", toml_string(pv.mpi_library));
  out += fmt::format("hosts = {}\n", toml_array(pv.hosts, toml_string));
  out += fmt::format("ranks = {}\n", pv.ranks);
  if (pv.ranks_per_node > 0) out += fmt::format("ranks_per_node = {}\n", pv.ranks_per_node);
  if (pv.duration_s > 0) out += fmt::format("duration_s = {}\n", toml_float(pv.duration_s));
  out += fmt::format("notes = {}\n", toml_string(pv.notes));
  return out;
}

}  // namespace collsel::models::model_file
