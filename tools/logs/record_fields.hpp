// Typed reading of one log record's fields (common/log_schema.hpp) for the log reader
// (log_reader.cpp) and the summary-table reader (summary_table_reader.cpp): Fields checks each
// field's JSON type and keeps the first problem, FieldReader walks the schema's field list into a
// record by the members' C++ types, StackTable resolves call-site ids of format version 2.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/log_schema.hpp"
#include "tools/logs/log_reader.hpp"

namespace collsel::logs::detail {
using nlohmann::json;

// Typed access to one record's fields. Remembers the first problem so a record is judged as a
// whole: any missing or mistyped field skips the record, with one message naming that field.
class Fields {
 public:
  explicit Fields(const json& object) : object_(object) {}

  std::string text(const char* key) {
    const json* v = find(key, "a string");
    if (v == nullptr) return {};
    if (!v->is_string()) {
      wrong(key, "a string", *v);
      return {};
    }
    return v->get<std::string>();
  }

  std::int64_t integer(const char* key) {
    const json* v = find(key, "an integer");
    if (v == nullptr) return 0;
    if (v->is_number_unsigned()) {
      const auto u = v->get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return static_cast<std::int64_t>(u);
      }
    } else if (v->is_number_integer()) {
      return v->get<std::int64_t>();
    }
    wrong(key, "an integer", *v);
    return 0;
  }

  int small_int(const char* key) {
    const std::int64_t i = integer(key);
    if (i < std::numeric_limits<int>::min() || i > std::numeric_limits<int>::max()) {
      wrong(key, "an int", object_.at(key));
      return 0;
    }
    return static_cast<int>(i);
  }

  std::uint64_t count(const char* key) {
    const json* v = find(key, "a non-negative integer");
    if (v == nullptr) return 0;
    if (!v->is_number_unsigned()) {
      wrong(key, "a non-negative integer", *v);
      return 0;
    }
    return v->get<std::uint64_t>();
  }

  // A call site: an array of return addresses (absolute, up to 2^64 - 1).
  std::vector<std::uint64_t> addresses(const char* key) {
    std::vector<std::uint64_t> out;
    const json* found = find(key, "an array of addresses");
    if (found == nullptr) return out;
    const json& v = *found;
    if (!v.is_array()) {
      wrong(key, "an array of addresses", v);
      return out;
    }
    out.reserve(v.size());
    for (const json& pc : v) {
      if (!pc.is_number_unsigned()) {
        wrong(key, "an array of non-negative integers", v);
        return {};
      }
      out.push_back(pc.get<std::uint64_t>());
    }
    return out;
  }

  double number(const char* key) {
    const json* v = find(key, "a number");
    if (v == nullptr) return 0.0;
    if (!v->is_number()) {
      wrong(key, "a number", *v);
      return 0.0;
    }
    return v->get<double>();
  }

  bool flag(const char* key) {
    const json* found = find(key, "true or false");
    if (found == nullptr) return false;
    const json& v = *found;
    if (!v.is_boolean()) {
      wrong(key, "true or false", v);
      return false;
    }
    return v.get<bool>();
  }

  std::optional<double> number_or_null(const char* key) {
    const json* v = find(key, "a number or null");
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_number()) {
      wrong(key, "a number or null", *v);
      return std::nullopt;
    }
    return v->get<double>();
  }

  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  const json* find(const char* key, std::string_view expected) {
    const auto it = object_.find(key);
    if (it != object_.end()) return &*it;
    note(fmt::format("field '{}' ({}) is missing", key, expected));
    return nullptr;
  }

  void wrong(const char* key, std::string_view expected, const json& got) {
    note(fmt::format("field '{}' should be {}, not {}", key, expected, got.dump()));
  }

  void note(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }

  const json& object_;
  std::string error_;
};

// The `stack` records of one file (format version 2): the call sites other records name by id.
struct StackTable {
  std::map<std::uint64_t, std::vector<std::uint64_t>> pcs;
  std::int64_t unknown_uses = 0;  // ids used with no `stack` record before them
  std::uint64_t first_unknown = 0;

  std::vector<std::uint64_t> resolve(std::uint64_t id) {
    const auto it = pcs.find(id);
    if (it != pcs.end()) return it->second;
    if (unknown_uses++ == 0) first_unknown = id;
    return {};  // the placeholder: no call site
  }
};

// Reads the schema's fields (common/log_schema.hpp) of a record of format `version` into a record
// by their C++ types; an optional field absent from the record keeps the member's value, its
// default.
class FieldReader {
 public:
  FieldReader(Fields& fields, const json& object, int version, StackTable* stacks = nullptr)
      : f_(fields), object_(object), version_(version), stacks_(stacks) {}

  void operator()(const char* key, std::string& v, schema::Presence p) {
    if (present(key, p)) v = f_.text(key);
  }
  void operator()(const char* key, int& v, schema::Presence p) {
    if (present(key, p)) v = f_.small_int(key);
  }
  void operator()(const char* key, std::int64_t& v, schema::Presence p) {
    if (present(key, p)) v = f_.integer(key);
  }
  void operator()(const char* key, std::uint64_t& v, schema::Presence p) {
    if (present(key, p)) v = f_.count(key);
  }
  void operator()(const char* key, double& v, schema::Presence p) {
    if (present(key, p)) v = f_.number(key);
  }
  void operator()(const char* key, std::optional<double>& v, schema::Presence p) {
    if (present(key, p)) v = f_.number_or_null(key);
  }
  void operator()(const char* key, bool& v, schema::Presence p) {
    if (present(key, p)) v = f_.flag(key);
  }
  void operator()(const char* key, std::vector<std::uint64_t>& v, schema::Presence p) {
    if (present(key, p)) v = f_.addresses(key);
  }
  // A call site: the addresses themselves in version 1, the id of a `stack` record after it.
  void operator()(const char* key, schema::SiteRef<std::vector<std::uint64_t>> site,
                  schema::Presence p) {
    if (!present(key, p)) return;
    if (version_ == 1 || stacks_ == nullptr) {
      site.value = f_.addresses(key);
      return;
    }
    const std::uint64_t id = f_.count(key);
    if (f_.error().empty()) site.value = stacks_->resolve(id);
  }

 private:
  bool present(const char* key, schema::Presence p) const {
    return schema::must_be_present(p, version_) || object_.contains(key);
  }
  Fields& f_;
  const json& object_;
  int version_;
  StackTable* stacks_;
};

// What a summary record must satisfy beyond its field types, so the report can divide by calls
// and trust the bucket; empty when it is sound. Both readers of summaries check it.
std::string summary_inconsistency(const SummaryRecord& s);

}  // namespace collsel::logs::detail
