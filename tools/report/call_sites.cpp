#include "tools/report/call_sites.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace collsel::tools {
namespace {

constexpr std::string_view kNoCallSite = "(no call site)";

// One row in the making.
struct Accumulator {
  report::CallSiteRow row;
  int frames_rank = std::numeric_limits<int>::max();  // the rank `row.frames` was resolved for
  std::set<std::string> algorithms;
  std::set<int> ranks;
};

// A site: its frames' texts, innermost first. Texts rather than addresses, so that the same line
// called on ranks with different ASLR layouts is one site.
using SiteKey = std::vector<std::string>;

class Aggregation {
 public:
  explicit Aggregation(Symbolizer& sym) : sym_(sym) {}

  void add(int world_rank, const std::vector<std::uint64_t>& stack, const std::string& coll,
           const std::string& algorithm, std::int64_t calls, double sum_s, double min_s,
           double max_s) {
    if (calls <= 0) return;
    const Resolved& site = resolved(world_rank, stack);
    Accumulator& a = rows_[{site.key, coll}];
    if (a.row.calls == 0) {
      a.row.coll = coll;
      a.row.min_s = min_s;
      a.row.max_s = max_s;
    } else {
      a.row.min_s = std::min(a.row.min_s, min_s);
      a.row.max_s = std::max(a.row.max_s, max_s);
    }
    if (world_rank < a.frames_rank) {
      a.frames_rank = world_rank;
      a.row.frames = site.frames;
    }
    a.row.calls += calls;
    a.row.time_s += sum_s;
    a.algorithms.insert(algorithm);
    a.ranks.insert(world_rank);
  }

  std::vector<report::CallSiteRow> rows() && {
    std::vector<report::CallSiteRow> out;
    out.reserve(rows_.size());
    for (auto& [key, a] : rows_) {
      report::CallSiteRow& r = a.row;
      r.site = r.frames.empty() ? std::string(kNoCallSite) : r.frames.front().text();
      r.mean_s = r.time_s / static_cast<double>(r.calls);
      r.algorithms.assign(a.algorithms.begin(), a.algorithms.end());
      r.ranks = static_cast<int>(a.ranks.size());
      out.push_back(std::move(r));
    }
    // Ties (rare with measured times) in site and collective order, so output is reproducible;
    // rows_ is already in that order and stable_sort keeps it.
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.time_s > b.time_s; });
    return out;
  }

 private:
  struct Resolved {
    SiteKey key;
    std::vector<Frame> frames;
  };

  // Stacks repeat (one per call record), so each distinct one is resolved and keyed once.
  const Resolved& resolved(int world_rank, const std::vector<std::uint64_t>& stack) {
    auto [it, inserted] = stacks_.try_emplace({world_rank, stack});
    if (inserted) {
      it->second.frames = sym_.resolve(world_rank, stack);
      for (const Frame& f : it->second.frames) it->second.key.push_back(f.text());
    }
    return it->second;
  }

  Symbolizer& sym_;
  std::map<std::pair<int, std::vector<std::uint64_t>>, Resolved> stacks_;
  std::map<std::pair<SiteKey, std::string>, Accumulator> rows_;  // by (site, coll)
};

}  // namespace

std::vector<report::CallSiteRow> call_site_rows(const logs::RunLog& log, Symbolizer& sym) {
  // Every distinct address first, so each object is read by one addr2line pass.
  std::set<std::pair<int, std::vector<std::uint64_t>>> distinct;
  for (const auto& c : log.calls) distinct.emplace(c.world_rank, c.stack);
  for (const auto& s : log.summaries) distinct.emplace(s.world_rank, s.stack);
  sym.prefetch({distinct.begin(), distinct.end()});

  Aggregation agg(sym);
  for (const auto& c : log.calls) {
    agg.add(c.world_rank, c.stack, c.coll, c.algorithm, 1, c.actual_s, c.actual_s, c.actual_s);
  }
  // Overflow entries have no stack: their calls land in "(no call site)", algorithm "*".
  for (const auto& s : log.summaries) {
    agg.add(s.world_rank, s.stack, s.coll, s.algorithm, s.calls, s.actual_sum_s, s.actual_min_s,
            s.actual_max_s);
  }
  return std::move(agg).rows();
}

}  // namespace collsel::tools
