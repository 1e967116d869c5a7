// The dynamic contention graph solver, seed 003 section 3.2 (eq. 1-3) and Fig. 3: an event-driven
// walk over the steps of the graph. During a step the active inter-node communications form a
// static graph, the rule gives each its penalty rho, and each transfers 1 / (alpha rho) bytes per
// second (eq. 1: t = alpha rho m). A step ends at the first completion or the first start, so
// its penalties hold throughout; eq. 2 is the bookkeeping of the bytes left, eq. 3 the step
// boundaries. Intra-node copies (src == dst, no self-loops in seed 003's graphs) take
// bytes x intra_alpha without contention and appear in no step.
//
// Events closer than kSlack (relative to the clock) are simultaneous: rounding must not split
// communications that finish together, like a, b and c of Fig. 3, into steps of 1e-18 s.
//
// Cost: O(steps x active) plus one call of the rule per step; starts and intra-node completions
// wait in heaps, so no step scans the communications that are not running. For the same reason a
// step's rows are the communications of its graph only (active, or done at its end), not every
// communication as Fig. 3 prints them: waiting and finished ones are in start_s / end_s.
#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <stdexcept>

#include <fmt/format.h>

#include "models/contention/graph.hpp"

namespace collsel::models::contention {
namespace {

constexpr double kSlack = 1e-9;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Below a microsecond the clock's own rounding is far smaller than any transfer.
double slack_at(double t) { return kSlack * std::max(std::fabs(t), 1e-6); }

std::string label(std::span<const Communication> comms, std::size_t i) {
  return comms[i].name.empty() ? fmt::format("communication #{}", i)
                               : fmt::format("communication #{} '{}'", i, comms[i].name);
}

bool finite_nonneg(double v) { return std::isfinite(v) && v >= 0.0; }

void check_inputs(std::span<const Communication> comms, const Rule& rule,
                  const SolveOptions& options) {
  if (!std::isfinite(options.alpha_s_per_byte) || options.alpha_s_per_byte <= 0.0) {
    throw std::invalid_argument(
        fmt::format("alpha = {} s/byte must be a finite number > 0", options.alpha_s_per_byte));
  }
  if (!finite_nonneg(options.intra_alpha_s_per_byte)) {
    throw std::invalid_argument(
        fmt::format("intra-node alpha = {} s/byte must be a finite number >= 0",
                    options.intra_alpha_s_per_byte));
  }
  if (!rule.penalties) {
    throw std::invalid_argument(
        fmt::format("penalty rule '{}' has no penalty function", rule.name));
  }
  for (std::size_t i = 0; i < comms.size(); ++i) {
    const Communication& c = comms[i];
    if (c.src < 0 || c.dst < 0) {
      throw std::invalid_argument(
          fmt::format("{}: node {} -> {} must be indices >= 0", label(comms, i), c.src, c.dst));
    }
    const struct {
      const char* name;
      double value;
    } values[] = {{"bytes", c.bytes},
                  {"start_s", c.start_s},
                  {"after_delay_s", c.after_delay_s},
                  {"tail_s", c.tail_s}};
    for (const auto& v : values) {
      if (!finite_nonneg(v.value)) {
        throw std::invalid_argument(fmt::format("{}: {} = {} must be a finite number >= 0",
                                                label(comms, i), v.name, v.value));
      }
    }
    for (const std::vector<int>* list : {&c.after, &c.after_sent}) {
      for (int j : *list) {
        if (j < 0 || static_cast<std::size_t>(j) >= comms.size()) {
          throw std::invalid_argument(fmt::format("{} waits for communication #{}, out of 0..{}",
                                                  label(comms, i), j, comms.size() - 1));
        }
      }
    }
  }
}

// Kahn's algorithm; on failure, walk back through unfinished predecessors to name a communication
// that really lies on a cycle rather than one merely waiting for it.
void check_acyclic(std::span<const Communication> comms) {
  const std::size_t n = comms.size();
  std::vector<int> pending(n);
  std::vector<std::vector<int>> dependants(n);
  for (std::size_t i = 0; i < n; ++i) {
    pending[i] = static_cast<int>(comms[i].after.size() + comms[i].after_sent.size());
    for (const std::vector<int>* list : {&comms[i].after, &comms[i].after_sent}) {
      for (int j : *list) dependants[static_cast<std::size_t>(j)].push_back(static_cast<int>(i));
    }
  }
  std::vector<int> ready;
  for (std::size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push_back(static_cast<int>(i));
  }
  std::size_t resolved = 0;
  while (!ready.empty()) {
    const int j = ready.back();
    ready.pop_back();
    ++resolved;
    for (int k : dependants[static_cast<std::size_t>(j)]) {
      if (--pending[static_cast<std::size_t>(k)] == 0) ready.push_back(k);
    }
  }
  if (resolved == n) return;
  std::size_t at = 0;
  while (pending[at] == 0) ++at;
  std::vector<char> seen(n, 0);
  while (!seen[at]) {
    seen[at] = 1;
    const auto unfinished = [&](const std::vector<int>& list) {
      return std::find_if(list.begin(), list.end(),
                          [&](int j) { return pending[static_cast<std::size_t>(j)] > 0; });
    };
    const Communication& c = comms[at];
    if (const auto j = unfinished(c.after); j != c.after.end()) {
      at = static_cast<std::size_t>(*j);
    } else if (const auto k = unfinished(c.after_sent); k != c.after_sent.end()) {
      at = static_cast<std::size_t>(*k);
    }
  }
  throw std::invalid_argument(
      fmt::format("{} is part of a dependency cycle ('after')", label(comms, at)));
}


struct Event {
  double time_s;
  int comm;
  // Earliest first, then input order, so equal inputs always give the same steps.
  friend bool operator>(const Event& x, const Event& y) {
    return x.time_s != y.time_s ? x.time_s > y.time_s : x.comm > y.comm;
  }
};
using EventQueue = std::priority_queue<Event, std::vector<Event>, std::greater<>>;

class Walk {
 public:
  Walk(std::span<const Communication> comms, const Rule& rule, const SolveOptions& options)
      : comms_(comms),
        rule_(rule),
        options_(options),
        pending_(comms.size()),
        released_s_(comms.size(), 0.0),
        remaining_(comms.size(), 0.0),
        dependants_(comms.size()) {
    solution_.start_s.assign(comms.size(), 0.0);
    solution_.end_s.assign(comms.size(), 0.0);
    for (std::size_t i = 0; i < comms.size(); ++i) {
      pending_[i] = static_cast<int>(comms[i].after.size() + comms[i].after_sent.size());
      for (int j : comms[i].after) {
        dependants_[static_cast<std::size_t>(j)].push_back({static_cast<int>(i), true});
      }
      for (int j : comms[i].after_sent) {
        dependants_[static_cast<std::size_t>(j)].push_back({static_cast<int>(i), false});
      }
      if (pending_[i] == 0) ready_.push({comms[i].start_s, static_cast<int>(i)});
    }
  }

  Solution run() {
    double now = next_event();
    while (now < kInfinity) {
      settle(now);
      if (active_.empty()) {
        now = next_event();
        continue;
      }
      now = step(now);
    }
    return std::move(solution_);
  }

 private:
  [[nodiscard]] double next_event() const {
    return std::min(ready_.empty() ? kInfinity : ready_.top().time_s,
                    copies_.empty() ? kInfinity : copies_.top().time_s);
  }

  // Starts and completes everything due at `now`; a completion may release a dependant due at
  // once (no tail, no delay), hence the loop.
  void settle(double now) {
    const double due = now + slack_at(now);
    for (;;) {
      if (!ready_.empty() && ready_.top().time_s <= due) {
        const int i = ready_.top().comm;
        ready_.pop();
        start(static_cast<std::size_t>(i), now);
      } else if (!copies_.empty() && copies_.top().time_s <= due) {
        const Event e = copies_.top();
        copies_.pop();
        complete(static_cast<std::size_t>(e.comm), e.time_s);
      } else {
        break;
      }
    }
  }

  void start(std::size_t i, double now) {
    const Communication& c = comms_[i];
    solution_.start_s[i] = now;
    if (c.src == c.dst) {
      copies_.push({now + c.bytes * options_.intra_alpha_s_per_byte, static_cast<int>(i)});
    } else if (c.bytes == 0.0) {
      complete(i, now);
    } else {
      remaining_[i] = c.bytes * c.wire_scale;
      // Keep input order so the rule sees the edges in a stable order.
      active_.insert(std::upper_bound(active_.begin(), active_.end(), i), i);
    }
  }

  void complete(std::size_t i, double end_s) {
    solution_.end_s[i] = end_s;
    for (const auto [k, with_tail] : dependants_[i]) {
      const auto d = static_cast<std::size_t>(k);
      released_s_[d] = std::max(released_s_[d], with_tail ? end_s + comms_[i].tail_s : end_s);
      if (--pending_[d] == 0) {
        ready_.push({std::max(comms_[d].start_s, released_s_[d] + comms_[d].after_delay_s), k});
      }
    }
  }

  // One static graph: its penalties, its end, and the bytes each communication moved (eq. 1, 2).
  double step(double now) {
    const double alpha = options_.alpha_s_per_byte;
    edges_.clear();
    for (std::size_t i : active_) edges_.push_back({comms_[i].src, comms_[i].dst});
    const std::vector<double> rho = checked_penalties(rule_, edges_);

    finish_s_.resize(active_.size());
    double end = next_event();
    for (std::size_t a = 0; a < active_.size(); ++a) {
      finish_s_[a] = now + remaining_[active_[a]] * alpha * rho[a];
      end = std::min(end, finish_s_[a]);
    }
    const double done_by = end + slack_at(end);

    Step step{now, end, {}};
    step.rows.reserve(active_.size());
    finished_.clear();
    for (std::size_t a = 0; a < active_.size(); ++a) {
      const std::size_t i = active_[a];
      StepRow row{static_cast<int>(i), StepRow::State::active, rho[a], 0.0, end};
      if (finish_s_[a] <= done_by) {
        remaining_[i] = 0.0;
        row.state = StepRow::State::done;
        finished_.push_back(i);
      } else {
        remaining_[i] -= (end - now) / (alpha * rho[a]);
        row.bytes_remaining = remaining_[i];
      }
      step.rows.push_back(row);
    }
    solution_.steps.push_back(std::move(step));

    std::size_t kept = 0;
    for (std::size_t a = 0; a < active_.size(); ++a) {
      if (finish_s_[a] > done_by) active_[kept++] = active_[a];
    }
    active_.resize(kept);
    for (std::size_t i : finished_) complete(i, end);
    return end;
  }

  std::span<const Communication> comms_;
  const Rule& rule_;
  const SolveOptions& options_;
  Solution solution_;
  std::vector<int> pending_;        // dependencies not yet complete
  std::vector<double> released_s_;  // latest end + tail among completed dependencies
  std::vector<double> remaining_;   // bytes left of an active communication
  struct Dependant {
    int comm;
    bool with_tail;  // through `after`; through `after_sent` it sees the end without the tail
  };
  std::vector<std::vector<Dependant>> dependants_;
  EventQueue ready_;                 // communications whose dependencies are all complete
  EventQueue copies_;                // intra-node copies, by completion time
  std::vector<std::size_t> active_;  // running inter-node communications, input order
  // Scratch space reused by every step.
  std::vector<Edge> edges_;
  std::vector<double> finish_s_;
  std::vector<std::size_t> finished_;
};

}  // namespace

std::vector<double> checked_penalties(const Rule& rule, std::span<const Edge> edges) {
  if (!rule.penalties) {
    throw std::invalid_argument(
        fmt::format("penalty rule '{}' has no penalty function", rule.name));
  }
  std::vector<double> rho = rule.penalties(edges);
  if (rho.size() != edges.size()) {
    throw std::invalid_argument(fmt::format("penalty rule '{}' returned {} penalties for {} edges",
                                            rule.name, rho.size(), edges.size()));
  }
  for (std::size_t i = 0; i < rho.size(); ++i) {
    // A penalty below 1 would make a communication faster than alone on the network (eq. 1).
    if (!(rho[i] >= 1.0) || !std::isfinite(rho[i])) {
      throw std::invalid_argument(
          fmt::format("penalty rule '{}' returned {} for edge {}->{}; penalties must be finite and "
                      ">= 1",
                      rule.name, rho[i], edges[i].src, edges[i].dst));
    }
  }
  return rho;
}

Solution solve(std::span<const Communication> comms, const Rule& rule,
               const SolveOptions& options) {
  check_inputs(comms, rule, options);
  check_acyclic(comms);
  return Walk(comms, rule, options).run();
}

}  // namespace collsel::models::contention
