#include "tools/report/self_correction.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "common/duration_format.hpp"
#include "common/size_parse.hpp"
#include "common/text_table.hpp"
#include "selector/config.hpp"
#include "selector/learned.hpp"

namespace collsel::report {

std::optional<SelfCorrection> self_correction(const std::filesystem::path& run_dir,
                                              const std::vector<MergedCall>& calls) {
  const std::filesystem::path path = run_dir / "learned.toml";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  SelfCorrection out;
  out.source = path.string();
  std::string error;
  const std::optional<std::string> text = read_text_file(out.source, error);
  if (!text) {
    out.problems.push_back(fmt::format("{}: cannot read the learned table ({})", out.source, error));
    return out;
  }
  // The run wrote it: its model is whatever the run used, so no model check here.
  const LearnedLoad load = parse_learned(*text, out.source, "");
  for (const auto& d : load.diagnostics) out.problems.push_back(d.format());
  if (!load.table) return out;

  using Key = std::tuple<std::string, int, std::uint64_t, int>;
  struct Seen {
    std::int64_t trials = 0, measured = 0;
    double trial_s = 0.0, measured_s = 0.0;
  };
  std::map<Key, Seen> seen;
  for (const MergedCall& c : calls) {
    if (c.rung != "explore" && c.rung != "measured") continue;
    Seen& s = seen[{c.coll, c.comm_size, c.bytes, c.root}];
    if (c.rung == "explore") {
      ++s.trials;
      s.trial_s += c.actual_s;
    } else {
      ++s.measured;
      s.measured_s += c.actual_s;
    }
  }
  bool any_trial = false;
  for (const LearnedShape& l : load.table->shapes) {
    CorrectionRow r;
    r.coll = std::string(collective_name(l.shape.coll));
    r.comm_size = l.shape.comm_size;
    r.bytes = l.shape.bytes;
    r.root = l.shape.root;
    r.model_choice = l.model_choice;
    r.chosen = l.chosen;
    r.calls = static_cast<std::int64_t>(l.calls);
    r.model_s = l.measured(l.model_choice);
    r.chosen_s = l.measured(l.chosen);
    const auto it = seen.find({r.coll, r.comm_size, r.bytes, r.root});
    if (it != seen.end()) {
      r.trial_calls = it->second.trials;
      r.measured_calls = it->second.measured;
      if (r.model_s) {
        r.saved_s = static_cast<double>(r.measured_calls) * *r.model_s - it->second.measured_s;
        r.trial_cost_s = it->second.trial_s - static_cast<double>(r.trial_calls) * *r.model_s;
      }
    }
    any_trial = any_trial || l.explore_calls > 0;
    out.rows.push_back(std::move(r));
  }
  std::sort(out.rows.begin(), out.rows.end(), [](const CorrectionRow& a, const CorrectionRow& b) {
    return std::tie(a.coll, a.comm_size, a.bytes, a.root) <
           std::tie(b.coll, b.comm_size, b.bytes, b.root);
  });
  out.mode_note = any_trial ? "runners-up were tried on some shapes ([adapt] mode explore or "
                              "exhaustive)"
                            : "no runner-up was tried: the monitors only measured ([adapt] mode "
                              "monitor, or every measurement matched its prediction)";
  return out;
}

namespace {

std::string seconds_cell(const std::optional<double>& s) {
  return s ? common::format_duration(*s) : "-";
}

}  // namespace

std::string format_self_correction_text(const SelfCorrection& s) {
  std::string out = "\nSelf-correction (" + s.source + ")\n";
  for (const auto& p : s.problems) out += "  " + p + "\n";
  if (s.rows.empty()) return out;
  out += "  " + s.mode_note + ".\n";
  out +=
      "  model/chosen per call: the agreed mean per call (slowest rank) the monitors measured.\n"
      "  saved: calls that ran the chosen algorithm x the model choice's measured mean - their\n"
      "  measured time; trials cost: the trial calls' measured time - as many calls x the model\n"
      "  choice's measured mean. Both are measured times; '-' where the model's choice was not\n"
      "  measured.\n";
  common::TextTable t({"coll", "P", "bytes", "root", "model's choice", "per call", "chosen",
                       "per call", "calls", "trials", "saved", "trials cost"},
                      {common::TextTable::Align::left, common::TextTable::Align::right,
                       common::TextTable::Align::right, common::TextTable::Align::right,
                       common::TextTable::Align::left, common::TextTable::Align::right,
                       common::TextTable::Align::left, common::TextTable::Align::right,
                       common::TextTable::Align::right, common::TextTable::Align::right,
                       common::TextTable::Align::right, common::TextTable::Align::right});
  double saved = 0.0, cost = 0.0;
  for (const CorrectionRow& r : s.rows) {
    t.add_row({r.coll, std::to_string(r.comm_size), common::format_size(r.bytes),
               std::to_string(r.root), r.model_choice, seconds_cell(r.model_s),
               r.chosen == r.model_choice ? "(same)" : r.chosen, seconds_cell(r.chosen_s),
               std::to_string(r.calls), std::to_string(r.trial_calls),
               r.measured_calls > 0 ? seconds_cell(r.saved_s) : "-",
               r.trial_calls > 0 ? seconds_cell(r.trial_cost_s) : "-"});
    saved += r.saved_s.value_or(0.0);
    cost += r.trial_cost_s.value_or(0.0);
  }
  out += t.render("  ");
  out += fmt::format("  In this run: saved {}, trials cost {}, net {}.\n",
                     common::format_duration(saved), common::format_duration(cost),
                     common::format_duration(saved - cost));
  return out;
}

}  // namespace collsel::report
