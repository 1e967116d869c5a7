// Small text helpers of the readers of user files (model imports, CSVs, sizes). Pure C++.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

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

}  // namespace collsel::text
