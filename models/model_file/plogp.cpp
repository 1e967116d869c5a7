// [plogp] and [intra_node]: the pLogP table (seed 001) between two nodes and within one.
#include "models/model_file/sections.hpp"

#include <algorithm>
#include <cmath>

namespace collsel::models::model_file {
namespace {

constexpr KeySpec kPlogpKeys[] = {
    {"latency_s", Kind::number, true, "1.5e-6"},
    {"eager_limit_bytes", Kind::integer, false, "16384"},
    {"sizes_bytes", Kind::integers, true, "[0, 1, 1024]"},
    {"gap_s", Kind::numbers, true, "[1e-6, 1e-6, 2e-6]"},
    {"send_overhead_s", Kind::numbers, true, "[1e-7, 1e-7, 3e-7]"},
    {"recv_overhead_s", Kind::numbers, true, "[1e-7, 1e-7, 3e-7]"},
    {"posted_gap_s", Kind::numbers, false, "[5e-7, 5e-7, 2e-6]"},
    {"fanout_share", Kind::numbers, false, "[0.0, 0.5, 1.0]"},
    {"pipeline_gap_s", Kind::numbers, false, "[5e-7, 6e-7, 2e-6]"},
    {"pair_share", Kind::numbers, false, "[0.0, 0.5, 1.0]"},
    {"one_way_s", Kind::numbers, false, "[5e-6, 5e-6, 7e-6]"},
    {"latency_spread", Kind::number, false, "0.02"},
    {"gap_spread", Kind::numbers, false, "[0.01, 0.02, 0.01]"},
    {"send_overhead_spread", Kind::numbers, false, "[0.01, 0.02, 0.01]"},
    {"recv_overhead_spread", Kind::numbers, false, "[0.01, 0.02, 0.01]"},
    {"posted_gap_spread", Kind::numbers, false, "[0.01, 0.02, 0.01]"},
};

// The optional measured columns, each written only when its flag is set and setting it when read
// (docs/MODELS.md, "Two gaps", "Shared fan-out", "Two receives ahead").
struct MeasuredColumn {
  std::string_view key;
  double plogp::SizePoint::*field;
  bool plogp::Params::*measured;
  std::string_view comment;
  bool fraction;  // a share: between 0 and 1
};

constexpr MeasuredColumn kMeasuredColumns[] = {
    {"posted_gap_s", &plogp::SizePoint::posted_gap_s, &plogp::Params::posted_gaps,
     "g_p(m), receives posted ahead, seconds", false},
    {"fanout_share", &plogp::SizePoint::fanout_share, &plogp::Params::fanout_shares,
     "sigma(m), a second receiver's share, 0 to 1", true},
    {"pipeline_gap_s", &plogp::SizePoint::pipeline_gap_s, &plogp::Params::pipeline_gaps,
     "g_2(m), two receives posted ahead, seconds", false},
    {"pair_share", &plogp::SizePoint::pair_share, &plogp::Params::pair_shares,
     "tau(m), a second message to one receiver, 0 to 1", true},
    {"one_way_s", &plogp::SizePoint::one_way_s, &plogp::Params::one_way_times,
     "one-way time of m bytes, RTT(m) - RTT(0) / 2, seconds", false},
};

void read_latency(Reader& r, const Section& s, plogp::Params& p) {
  const toml::node* n = find(r, s, "latency_s");
  if (n == nullptr) return;
  p.latency_s = number_of(*n);
  if (!usable_time(p.latency_s)) {
    bad_time(r, line_of(*n), fmt::format("latency_s {}", s.where), p.latency_s);
  }
}

// The four arrays must have one entry per size; the first one that differs from sizes_bytes is
// reported with both lengths.
bool same_lengths(
    Reader& r, std::string_view where, const ArrayRead<std::uint64_t>& sizes,
    std::initializer_list<std::pair<std::string_view, const ArrayRead<double>*>> cols) {
  for (const auto& [name, col] : cols) {
    if (col->values.size() == sizes.values.size()) continue;
    r.error(col->line,
            fmt::format("{} {} has {} values but sizes_bytes has {}", name, where,
                        col->values.size(), sizes.values.size()),
            or_regenerate("give one value per entry of sizes_bytes"));
    return false;
  }
  return true;
}

template <class Field>
std::string column(const plogp::Params& p, Field field) {
  std::vector<double> values;
  for (const auto& point : p.table) values.push_back(point.*field);
  return toml_array(values, toml_float);
}

}  // namespace

void read_plogp(Reader& r, const toml::table& t, plogp::Params& p,
                std::string_view where) {
  const Section s{t, where, kPlogpKeys, line_of(t)};
  warn_unknown_keys(r, s);
  read_latency(r, s, p);
  if (auto e = read_integer(r, s, "eager_limit_bytes", 0, INT64_MAX, ">= 0")) {
    p.eager_limit_bytes = static_cast<std::uint64_t>(*e);
  }
  const auto sizes = read_sizes(r, s, "sizes_bytes");
  const auto gap = read_times(r, s, "gap_s");
  const auto send = read_times(r, s, "send_overhead_s");
  const auto recv = read_times(r, s, "recv_overhead_s");
  if (!(sizes.ok && gap.ok && send.ok && recv.ok)) return;
  if (!same_lengths(r, s.where, sizes,
                    {{"gap_s", &gap}, {"send_overhead_s", &send}, {"recv_overhead_s", &recv}})) {
    return;
  }
  for (std::size_t i = 0; i < sizes.values.size(); ++i) {
    p.table.push_back({sizes.values[i], gap.values[i], send.values[i], recv.values[i]});
  }
  if (const toml::node* n = find(r, s, "latency_spread")) {
    p.latency_spread = number_of(*n);
    if (!usable_time(p.latency_spread)) {
      bad_time(r, line_of(*n), fmt::format("latency_spread {}", s.where), p.latency_spread);
    }
  }
  // Optional columns, one value per size when present: the measured columns of
  // kMeasuredColumns, each setting its flag (files written before them have none; a share above
  // 1 is reported here, with its line), and the spreads of the values they qualify.
  const auto read_column = [&](std::string_view key, double plogp::SizePoint::*field,
                               bool fraction) {
    if (t.get(key) == nullptr) return false;
    const auto values = read_times(r, s, key);
    if (!values.ok || !same_lengths(r, s.where, sizes, {{key, &values}})) return false;
    if (fraction) {
      const auto above = std::find_if(values.values.begin(), values.values.end(),
                                      [](double v) { return v > 1.0; });
      if (above != values.values.end()) {
        r.error(values.line,
                fmt::format("{} {} is {} at {} bytes, but it is a fraction", key, s.where, *above,
                            sizes.values[static_cast<std::size_t>(above - values.values.begin())]),
                or_regenerate("give values between 0 and 1"));
        return false;
      }
    }
    for (std::size_t i = 0; i < values.values.size(); ++i) p.table[i].*field = values.values[i];
    return true;
  };
  for (const MeasuredColumn& c : kMeasuredColumns) {
    if (read_column(c.key, c.field, c.fraction)) p.*c.measured = true;
  }
  for (const auto& [key, field] :
       {std::pair{"gap_spread", &plogp::SizePoint::gap_spread},
        std::pair{"send_overhead_spread", &plogp::SizePoint::send_overhead_spread},
        std::pair{"recv_overhead_spread", &plogp::SizePoint::recv_overhead_spread},
        std::pair{"posted_gap_spread", &plogp::SizePoint::posted_gap_spread}}) {
    read_column(key, field, false);
  }
}

std::string plogp_body(const plogp::Params& p) {
  std::string out;
  out += fmt::format("latency_s = {}  # L, seconds\n", toml_float(p.latency_s));
  if (p.eager_limit_bytes) {
    out += fmt::format("eager_limit_bytes = {}  # the MPI library's eager/rendezvous switch\n",
                       *p.eager_limit_bytes);
  }
  std::vector<std::uint64_t> sizes;
  for (const auto& point : p.table) sizes.push_back(point.bytes);
  out += fmt::format("sizes_bytes = {}\n",
                     toml_array(sizes, [](std::uint64_t b) { return fmt::format("{}", b); }));
  out += fmt::format("gap_s = {}  # g(m), seconds\n", column(p, &plogp::SizePoint::gap_s));
  out += fmt::format("send_overhead_s = {}  # o_s(m), seconds\n",
                     column(p, &plogp::SizePoint::send_overhead_s));
  out += fmt::format("recv_overhead_s = {}  # o_r(m), seconds\n",
                     column(p, &plogp::SizePoint::recv_overhead_s));
  for (const MeasuredColumn& c : kMeasuredColumns) {
    if (p.*c.measured) out += fmt::format("{} = {}  # {}\n", c.key, column(p, c.field), c.comment);
  }
  const bool spreads = p.latency_spread > 0 ||
                       std::any_of(p.table.begin(), p.table.end(), [](const auto& x) {
                         return x.gap_spread > 0 || x.send_overhead_spread > 0 ||
                                x.recv_overhead_spread > 0 || x.posted_gap_spread > 0;
                       });
  if (spreads) {
    out += "# spreads: half-width of the 95 % confidence interval of the median, relative\n";
    out += fmt::format("latency_spread = {}\n", toml_float(p.latency_spread));
    out += fmt::format("gap_spread = {}\n", column(p, &plogp::SizePoint::gap_spread));
    out += fmt::format("send_overhead_spread = {}\n",
                       column(p, &plogp::SizePoint::send_overhead_spread));
    out += fmt::format("recv_overhead_spread = {}\n",
                       column(p, &plogp::SizePoint::recv_overhead_spread));
    if (p.posted_gaps) {
      out += fmt::format("posted_gap_spread = {}\n",
                         column(p, &plogp::SizePoint::posted_gap_spread));
    }
  }
  return out;
}

}  // namespace collsel::models::model_file
