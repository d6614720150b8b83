#include "http/dashboard/prometheus_samples.h"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace inferd::http {
namespace {

// A label value from just after its opening quote; advances `rest` past the
// closing quote. False when the quote never closes.
bool ReadQuoted(std::string_view* rest, std::string* value) {
  value->clear();
  for (size_t i = 0; i < rest->size(); ++i) {
    const char c = (*rest)[i];
    if (c == '"') {
      rest->remove_prefix(i + 1);
      return true;
    }
    if (c == '\\' && i + 1 < rest->size()) {
      const char next = (*rest)[++i];
      value->push_back(next == 'n' ? '\n' : next);
      continue;
    }
    value->push_back(c);
  }
  return false;
}

// `{k="v",...}`, from just after the brace; advances `rest` past the closing one.
bool ReadLabels(std::string_view* rest, PrometheusSample* sample) {
  while (!rest->empty() && rest->front() != '}') {
    const size_t equals = rest->find('=');
    if (equals == std::string_view::npos || equals + 1 >= rest->size() ||
        (*rest)[equals + 1] != '"') {
      return false;
    }
    std::string_view key = rest->substr(0, equals);
    rest->remove_prefix(equals + 2);
    std::string value;
    if (!ReadQuoted(rest, &value)) return false;
    sample->labels.emplace_back(key, std::move(value));
    if (!rest->empty() && rest->front() == ',') rest->remove_prefix(1);
  }
  if (rest->empty()) return false;
  rest->remove_prefix(1);
  return true;
}

bool ParseValue(std::string_view text, double* value) {
  const size_t end = text.find_first_of(" \t");  // a timestamp may follow
  const std::string number(text.substr(0, end));
  if (number == "NaN") {
    *value = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (number == "+Inf" || number == "-Inf") {
    *value = number[0] == '+' ? HUGE_VAL : -HUGE_VAL;
    return true;
  }
  char* parsed_end = nullptr;
  *value = std::strtod(number.c_str(), &parsed_end);
  return !number.empty() && parsed_end == number.c_str() + number.size();
}

}  // namespace

std::string_view PrometheusSample::Label(std::string_view key) const {
  for (const auto& [name, value] : labels) {
    if (name == key) return value;
  }
  return {};
}

void ForEachPrometheusSample(std::string_view text,
                             const std::function<bool(std::string_view name)>& wanted,
                             const std::function<void(const PrometheusSample&)>& visit) {
  PrometheusSample sample;
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line.empty() || line.front() == '#') continue;
    const size_t name_end = line.find_first_of("{ ");
    if (name_end == std::string_view::npos || !wanted(line.substr(0, name_end))) continue;
    sample.name = line.substr(0, name_end);
    sample.labels.clear();
    line.remove_prefix(name_end);
    if (line.front() == '{') {
      line.remove_prefix(1);
      if (!ReadLabels(&line, &sample)) continue;
    }
    const size_t value_start = line.find_first_not_of(" \t");
    if (value_start == std::string_view::npos) continue;
    if (!ParseValue(line.substr(value_start), &sample.value)) continue;
    visit(sample);
  }
}

}  // namespace inferd::http
