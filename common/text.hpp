// Small text helpers of the readers of user files (model imports, CSVs, sizes). Pure C++.
#pragma once

#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collsel::text {

// `s` without leading and trailing white space (std::isspace: blanks, tabs, CR, ...).
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// ASCII lower case, for case-insensitive names and suffixes.
inline std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The blank-separated words of `line`.
inline std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

// The whole text as a finite number, or nothing (checked conversion, STYLE.md 8.7 #27).
inline std::optional<double> parse_number(std::string_view s) {
  double v = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// Calls f(line_number, words) for every line of `text` that has a word once a comment ('#' to the
// end of the line) is cut off; line numbers from 1; a UTF-8 byte-order mark is ignored. The
// line-based input files of the tools (contention graphs, penalty files) read this way.
template <class F>
void for_each_word_line(std::string_view text, F&& f) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  int line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol == std::string_view::npos ? eol : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    ++line_no;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    const std::vector<std::string_view> w = words(line);
    if (!w.empty()) f(line_no, w);
  }
}

}  // namespace collsel::text
