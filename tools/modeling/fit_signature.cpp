#include "tools/modeling/fit_signature.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/text.hpp"
#include "common/duration_format.hpp"
#include "common/text_table.hpp"

namespace collsel::tools::fit_signature {
namespace {

using models::alltoall::kNoThreshold;
using json = nlohmann::ordered_json;

constexpr std::string_view kColumns[] = {"n", "m_bytes", "seconds"};
constexpr std::string_view kFormatFix =
    "the file needs a header line n,m_bytes,seconds (any order) and one measurement per line";

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(text::trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

template <class T>
std::optional<T> parse_whole(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

struct Reader {
  std::string_view source;
  CsvRead& out;

  void error(int line, std::string problem, std::string fix) {
    out.rows.clear();
    out.diagnostics.push_back({Diagnostic::Severity::error, std::string(source), line,
                               std::move(problem), std::move(fix)});
  }
  void warn(int line, std::string problem, std::string fix) {
    out.diagnostics.push_back({Diagnostic::Severity::warning, std::string(source), line,
                               std::move(problem), std::move(fix)});
  }
};

// Column positions of n, m_bytes and seconds, or nothing (reported) when the header is unusable.
std::optional<std::array<std::size_t, 3>> read_header(Reader& r, int line,
                                                      const std::vector<std::string_view>& names) {
  std::array<std::optional<std::size_t>, 3> at;
  std::set<std::string> seen;
  std::vector<std::string_view> unused;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string name = text::lowercase(names[i]);
    if (!seen.insert(name).second) {
      r.error(line, fmt::format("column '{}' appears twice in the header", names[i]),
              "keep one column of each name");
      return std::nullopt;
    }
    const auto known = std::find(std::begin(kColumns), std::end(kColumns), name);
    if (known == std::end(kColumns)) {
      unused.push_back(names[i]);
      continue;
    }
    at[static_cast<std::size_t>(known - std::begin(kColumns))] = i;
  }
  std::array<std::size_t, 3> positions{};
  for (std::size_t c = 0; c < 3; ++c) {
    if (!at[c]) {
      std::string found;
      for (const auto& n : names) found += fmt::format("{}'{}'", found.empty() ? "" : ", ", n);
      r.error(line,
              fmt::format("the header has no column '{}' (found {})", kColumns[c], found),
              std::string(kFormatFix));
      return std::nullopt;
    }
    positions[c] = *at[c];
  }
  // Only once the header is usable: a header that is not one gets one message, not one per cell.
  for (const auto& name : unused) {
    r.warn(line, fmt::format("column '{}' is not used", name),
           "only n, m_bytes and seconds are read");
  }
  return positions;
}

// One measurement, or nothing (reported).
std::optional<models::alltoall::Sample> read_row(Reader& r, int line,
                                                 const std::vector<std::string_view>& fields,
                                                 std::size_t header_size,
                                                 const std::array<std::size_t, 3>& at) {
  if (fields.size() != header_size) {
    r.error(line,
            fmt::format("expected {} comma-separated fields as in the header, found {}",
                        header_size, fields.size()),
            "give one value per header column");
    return std::nullopt;
  }
  models::alltoall::Sample s;
  const std::string_view n = fields[at[0]];
  const auto ranks = parse_whole<int>(n);
  if (!ranks || *ranks < 2) {
    r.error(line, fmt::format("n is '{}'; it must be a whole number of processes >= 2", n),
            "write the process count of the measured All-to-All, such as 16");
    return std::nullopt;
  }
  s.n = *ranks;
  const std::string_view m = fields[at[1]];
  const auto bytes = parse_whole<std::uint64_t>(m);
  if (!bytes) {
    r.error(line, fmt::format("m_bytes is '{}'; it must be a whole number of bytes >= 0", m),
            "write the bytes each process sends to each other one, such as 4096");
    return std::nullopt;
  }
  s.bytes = *bytes;
  const std::string_view t = fields[at[2]];
  const auto seconds = parse_whole<double>(t);
  if (!seconds || !std::isfinite(*seconds) || *seconds <= 0.0) {
    r.error(line, fmt::format("seconds is '{}'; it must be a finite number > 0", t),
            "write the measured completion time in seconds, such as 0.0125 or 1.25e-2");
    return std::nullopt;
  }
  s.seconds = *seconds;
  return s;
}

std::string threshold_text(std::uint64_t m) {
  return m == kNoThreshold ? "none" : fmt::format("{}", m);
}

json threshold_json(std::uint64_t m) { return m == kNoThreshold ? json(nullptr) : json(m); }

// Shortest text that reads back to the same double, as a TOML float.
std::string toml_float(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string process_counts(const std::vector<Row>& rows) {
  std::set<int> ns;
  for (const Row& row : rows) ns.insert(row.sample.n);
  std::string out;
  for (int n : ns) out += fmt::format("{}{}", out.empty() ? "" : ", ", n);
  return out;
}

}  // namespace

CsvRead read_samples_csv(std::string_view text, std::string_view source) {
  CsvRead out;
  Reader r{source, out};
  std::optional<std::array<std::size_t, 3>> at;
  std::size_t header_size = 0;
  int line = 0;
  // A byte order mark, as spreadsheets write it, is not part of the first column's name.
  std::size_t start = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    ++line;
    const std::string_view content = text::trim(raw);
    if (content.empty() || content.front() == '#') continue;
    const std::vector<std::string_view> fields = split(content);
    if (!at) {
      at = read_header(r, line, fields);
      if (!at) return out;
      header_size = fields.size();
      continue;
    }
    const auto sample = read_row(r, line, fields, header_size, *at);
    if (!sample) return out;
    out.rows.push_back({line, *sample});
  }
  if (!at) {
    r.error(0, "no header line and no data", std::string(kFormatFix));
  } else if (out.rows.empty()) {
    r.error(0, "a header but no measurements", std::string(kFormatFix));
  }
  return out;
}

std::string format_text(const Result& r) {
  const auto& sig = r.fit.signature;
  const auto& q = r.fit.quality;
  std::string out;
  out += fmt::format("data:     {}, {} measurements, n = {}\n", r.source, r.rows.size(),
                     process_counts(r.rows));
  out += fmt::format(
      "hockney:  alpha = {} s, beta = {} s/byte (the lower bound of Proposition 1)\n",
      r.hockney.alpha_s, r.hockney.beta_s_per_byte);
  out += fmt::format("gamma:    {:.6g}\n", sig.gamma);
  if (sig.threshold_bytes == kNoThreshold) {
    out += "delta:    none\nM:        none (no delta term)\n";
  } else {
    out += fmt::format("delta:    {} ({:.6g} s) per round, for m >= M\n",
                       common::format_duration(sig.delta_s), sig.delta_s);
    out += fmt::format("M:        {} bytes\n", sig.threshold_bytes);
  }
  out += fmt::format("fit:      {} points, rms relative error {}, max |relative error| {}\n",
                     q.points, common::format_percent(q.rms_rel), common::format_percent(q.max_abs_rel));
  out += "model:    T = gamma (n-1)(alpha + m beta) + (n-1) delta [m >= M]\n";

  out += "\nthresholds tried (least AIC wins; AIC = N ln(SSR/N) + 2k):\n";
  common::TextTable candidates({"M", "gamma", "delta", "AIC", "note"},
                       {common::TextTable::Align::right, common::TextTable::Align::right, common::TextTable::Align::right,
                        common::TextTable::Align::right, common::TextTable::Align::left});
  for (const auto& c : r.fit.candidates) {
    const bool chosen = c.rejected.empty() && c.threshold_bytes == sig.threshold_bytes;
    const bool has_delta = c.threshold_bytes != kNoThreshold;
    candidates.add_row({threshold_text(c.threshold_bytes),
                        c.solved ? fmt::format("{:.6g}", c.gamma) : "-",
                        c.solved && has_delta ? common::format_duration(c.delta_s) : "-",
                        c.solved ? fmt::format("{:.2f}", c.aic) : "-",
                        chosen                ? "<- chosen"
                        : c.rejected.empty() ? ""
                                             : "rejected: " + c.rejected});
  }
  out += candidates.render("  ");

  out += "\nmeasurements (rel. error = (fitted - measured) / measured):\n";
  common::TextTable rows({"line", "n", "m_bytes", "measured", "fitted", "rel. error"},
                 {common::TextTable::Align::right, common::TextTable::Align::right, common::TextTable::Align::right,
                  common::TextTable::Align::right, common::TextTable::Align::right, common::TextTable::Align::right});
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& s = r.rows[i].sample;
    const double fitted = r.fit.predicted[i];
    rows.add_row({fmt::format("{}", r.rows[i].line), fmt::format("{}", s.n),
                  fmt::format("{}", s.bytes), common::format_duration(s.seconds),
                  common::format_duration(fitted),
                  common::format_signed_percent((fitted - s.seconds) / s.seconds)});
  }
  out += rows.render("  ");

  // Ready to paste: the keys of the model file's [alltoall] section this fit determines.
  out += "\n# for the model file's [alltoall] section (docs/MODELS.md, \"Model file\"):\n";
  std::set<int> ns;
  for (const Row& row : r.rows) ns.insert(row.sample.n);
  if (ns.size() == 1) out += fmt::format("sample_ranks = {}\n", *ns.begin());
  out += fmt::format("alpha_s = {}\n", toml_float(r.hockney.alpha_s));
  out += fmt::format("beta_s_per_byte = {}\n", toml_float(r.hockney.beta_s_per_byte));
  out += fmt::format("gamma = {}\n", toml_float(sig.gamma));
  out += fmt::format("delta_s = {}\n", toml_float(sig.delta_s));
  if (sig.threshold_bytes != kNoThreshold) {
    out += fmt::format("delta_from_bytes = {}\n", sig.threshold_bytes);
  }
  out += fmt::format("fit_points = {}\n", q.points);
  out += fmt::format("fit_rms_rel = {}\n", toml_float(q.rms_rel));
  out += fmt::format("fit_max_abs_rel = {}\n", toml_float(q.max_abs_rel));
  return out;
}

std::string format_json(const Result& r) {
  const auto& sig = r.fit.signature;
  json doc;
  doc["file"] = r.source;
  doc["alpha_s"] = r.hockney.alpha_s;
  doc["beta_s_per_byte"] = r.hockney.beta_s_per_byte;
  doc["gamma"] = sig.gamma;
  doc["delta_s"] = sig.delta_s;
  doc["threshold_bytes"] = threshold_json(sig.threshold_bytes);
  doc["fit"] = {{"points", r.fit.quality.points},
                {"rms_rel", r.fit.quality.rms_rel},
                {"max_abs_rel", r.fit.quality.max_abs_rel}};
  json candidates = json::array();
  for (const auto& c : r.fit.candidates) {
    const auto number = [&](double v) { return c.solved ? json(v) : json(nullptr); };
    candidates.push_back({{"threshold_bytes", threshold_json(c.threshold_bytes)},
                          {"gamma", number(c.gamma)},
                          {"delta_s", number(c.delta_s)},
                          {"delta_t", number(c.delta_t)},
                          {"ssr", number(c.ssr)},
                          {"aic", number(c.aic)},
                          {"rejected", c.rejected.empty() ? json(nullptr) : json(c.rejected)}});
  }
  doc["candidates"] = std::move(candidates);
  json rows = json::array();
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& s = r.rows[i].sample;
    const double fitted = r.fit.predicted[i];
    rows.push_back({{"line", r.rows[i].line},
                    {"n", s.n},
                    {"m_bytes", s.bytes},
                    {"measured_s", s.seconds},
                    {"fitted_s", fitted},
                    {"rel_error", (fitted - s.seconds) / s.seconds}});
  }
  doc["rows"] = std::move(rows);
  return doc.dump(2) + "\n";
}

}  // namespace collsel::tools::fit_signature
