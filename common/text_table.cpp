#include "common/text_table.hpp"

#include <algorithm>

namespace collsel::common {
namespace {

void append_cell(std::string& line, const std::string& cell, std::size_t width,
                 TextTable::Align align, bool last) {
  const std::size_t pad = width > cell.size() ? width - cell.size() : 0;
  if (align == TextTable::Align::right) line.append(pad, ' ');
  line += cell;
  if (align == TextTable::Align::left && !last) line.append(pad, ' ');
}

}  // namespace

TextTable::TextTable(std::vector<std::string> headers, std::vector<Align> align)
    : headers_(std::move(headers)), align_(std::move(align)) {
  align_.resize(headers_.size(), Align::left);
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render(const std::string& indent) const {
  std::vector<std::size_t> widths(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    widths[c] = headers_[c].size();
    for (const auto& row : rows_) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  const auto render_line = [&](const std::vector<std::string>& cells) {
    std::string line = indent;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) line += "  ";
      append_cell(line, cells[c], widths[c], align_[c], c + 1 == cells.size());
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  };
  render_line(headers_);
  for (const auto& row : rows_) render_line(row);
  return out;
}

}  // namespace collsel::common
