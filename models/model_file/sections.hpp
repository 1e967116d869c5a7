// The model file's sections, one unit each, holding the section's keys, its reading with the
// checks of its values, and its writing: metadata.cpp (format_version, name, description,
// [provenance]), plogp.cpp ([plogp] and [intra_node]), alltoall.cpp, contention.cpp, logfp.cpp.
// model_file.cpp assembles them. Adding a section is one new unit and two lines there.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/model_file/reading.hpp"

namespace collsel::models::model_file {

// metadata.cpp: the top level and [provenance].
extern const std::span<const KeySpec> kTopLevelKeys;
// format_version decides how the rest reads, so a missing, mistyped or other version stops here.
bool read_version(Reader& r, const Section& top);
void read_provenance(Reader& r, const toml::table& t, Provenance& p);
std::string metadata_text(const ModelFile& m);  // the top-level keys and [provenance]

// plogp.cpp: the pLogP table, [plogp] (between nodes) and [intra_node].
void read_plogp(Reader& r, const toml::table& t, plogp::Params& p,
                std::string_view where = "in [plogp]");
std::string plogp_body(const plogp::Params& p);

// alltoall.cpp: seed 000's contention signature.
std::optional<alltoall::Contention> read_alltoall(Reader& r, const toml::table& t);
std::string alltoall_body(const alltoall::Contention& c);

// contention.cpp: the penalty rule and the measured graphs (seeds 002, 003).
std::optional<contention::Params> read_contention(Reader& r, const toml::table& t);
std::string contention_body(const contention::Params& c);

// corrections.cpp: per-algorithm factors on the predictions (collsel refit).
std::vector<std::pair<std::string, double>> read_corrections(Reader& r, const toml::table& t);
std::string corrections_body(const std::vector<std::pair<std::string, double>>& c);

// logfp.cpp: seed 004's LogfP.
std::optional<logfp::Params> read_logfp(Reader& r, const toml::table& t);
std::string logfp_body(const logfp::Params& p);

}  // namespace collsel::models::model_file
