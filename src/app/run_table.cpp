#include "run_table.hpp"

#include <algorithm>
#include <cctype>

#include "tracewarp/core/error.hpp"

namespace tracewarp::app {
namespace {

constexpr std::size_t kIdWidth = 8;   // "run-0000"
constexpr std::size_t kMinWidth = 9;  // a figure's column, at least
const std::string kMissing = "-";

std::string after_section(const std::string& key) { return key.substr(key.find('.') + 1); }

// Right-aligned when it reads as a number, else left-aligned.
std::string cell(const std::string& text, std::size_t width, bool number) {
  if (text.size() >= width) return text;
  const std::string pad(width - text.size(), ' ');
  return number ? pad + text : text + pad;
}

std::string trimmed(std::string line) {
  line.erase(line.find_last_not_of(' ') + 1);
  return line;
}

bool is_number(const AttrValue& v) { return !std::holds_alternative<std::string>(v); }

}  // namespace

RunTable::RunTable(std::vector<std::string> swept, std::vector<std::string> figures)
    : swept_(std::move(swept)), figures_(std::move(figures)) {
  for (const std::string& key : swept_) {
    const auto same_tail = [&](const std::string& other) { return after_section(other) == after_section(key); };
    headings_.push_back(std::count_if(swept_.begin(), swept_.end(), same_tail) > 1 ? key : after_section(key));
  }
}

void RunTable::fit(const Attributes& swept_values, const Attributes& summary) {
  if (widths_.empty()) {
    if (figures_.size() == 1 && figures_.front() == "all") {
      figures_.clear();
      for (const auto& [name, value] : summary) figures_.push_back(name);
    }
    widths_ = {kIdWidth};
    numeric_ = {false};
    for (const std::string& h : headings_) widths_.push_back(std::max(h.size(), kMinWidth));
    for (const std::string& f : figures_) widths_.push_back(std::max(f.size(), kMinWidth));
    for (const std::string& key : swept_) {
      const auto it = swept_values.find(key);
      numeric_.push_back(it == swept_values.end() || is_number(it->second));
    }
    for (const std::string& f : figures_) {
      const auto it = summary.find(f);
      numeric_.push_back(it == summary.end() || is_number(it->second));
    }
  }
  std::size_t column = 1;
  const auto widen = [&](const Attributes& from, const std::string& name) {
    const auto it = from.find(name);
    if (it != from.end()) widths_[column] = std::max(widths_[column], to_text(it->second).size());
    ++column;
  };
  for (const std::string& key : swept_) widen(swept_values, key);
  for (const std::string& f : figures_) widen(summary, f);
}

std::string RunTable::header(const std::string& tail) const {
  if (widths_.empty()) throw InvariantError("RunTable::header before a fit");
  std::string line = cell("run", kIdWidth, false);
  for (std::size_t k = 0; k < headings_.size(); ++k) line += "  " + cell(headings_[k], widths_[1 + k], numeric_[1 + k]);
  for (std::size_t f = 0; f < figures_.size(); ++f) {
    const std::size_t column = 1 + headings_.size() + f;
    line += "  " + cell(figures_[f], widths_[column], numeric_[column]);
  }
  return tail.empty() ? trimmed(line) : line + "  " + tail;
}

std::string RunTable::row(const std::string& id, const Attributes& swept_values, const Attributes& summary,
                          const std::string& tail) const {
  if (widths_.empty()) throw InvariantError("RunTable::row before a fit");
  std::string line = cell(id, widths_[0], false);
  std::size_t column = 1;
  const auto add = [&](const Attributes& from, const std::string& name) {
    const auto it = from.find(name);
    line += "  " + cell(it == from.end() ? kMissing : to_text(it->second), widths_[column], numeric_[column]);
    ++column;
  };
  for (const std::string& key : swept_) add(swept_values, key);
  for (const std::string& f : figures_) add(summary, f);
  return tail.empty() ? trimmed(line) : line + "  " + tail;
}

std::vector<std::string> RunTable::missing(const Attributes& summary) const {
  std::vector<std::string> out;
  for (const std::string& f : figures_)
    if (!summary.count(f)) out.push_back(f);
  return out;
}

std::vector<std::string> table_columns(const std::string& option, const std::vector<std::string>& headline) {
  if (option.empty()) return headline;
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from <= option.size()) {
    const std::size_t comma = std::min(option.find(',', from), option.size());
    std::string name = option.substr(from, comma - from);
    name.erase(std::remove_if(name.begin(), name.end(), [](unsigned char c) { return std::isspace(c); }), name.end());
    if (name.empty()) throw UsageError("--columns '" + option + "': an empty name (give NAME,NAME,... or all)");
    out.push_back(name);
    from = comma + 1;
  }
  if (out.size() > 1 && std::count(out.begin(), out.end(), "all") > 0)
    throw UsageError("--columns: 'all' stands alone");
  return out;
}

Attributes swept_values(const std::string& varied, const Attributes& parameters) {
  Attributes out;
  std::string key;
  // "k=v, k=v": a piece that does not start with a key (a text value holding ", ") belongs to
  // the value before it.
  const auto starts_with_key = [](const std::string& piece) {
    const std::size_t eq = piece.find('=');
    if (eq == std::string::npos || piece.find('.') > eq) return false;
    return std::all_of(piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(eq),
                       [](unsigned char c) { return std::islower(c) || std::isdigit(c) || c == '_' || c == '.'; });
  };
  std::size_t from = 0;
  while (from < varied.size()) {
    std::size_t end = varied.find(", ", from);
    if (end == std::string::npos) end = varied.size();
    const std::string piece = varied.substr(from, end - from);
    if (starts_with_key(piece)) {
      key = piece.substr(0, piece.find('='));
      out[key] = piece.substr(piece.find('=') + 1);
    } else if (!key.empty()) {
      out[key] = std::get<std::string>(out[key]) + ", " + piece;
    }
    from = end + 2;
  }
  for (auto& [k, v] : out) {
    std::string& text = std::get<std::string>(v);
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
    if (const auto it = parameters.find(k); it != parameters.end()) v = it->second;
  }
  return out;
}

std::vector<std::string> swept_keys(const std::string& varied) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : swept_values(varied, {})) keys.push_back(k);
  return keys;
}

}  // namespace tracewarp::app
