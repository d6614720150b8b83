#include "core/config/config_error.h"

#include <algorithm>
#include <regex>

#include "core/config/config_locations.h"

namespace inferd {

ConfigErrors::ConfigErrors(const ConfigContext& ctx, const inference::ModelConfig& config)
    : ctx_(ctx), config_(config) {
  model_ = "model '";
  model_ += ctx.model_name.empty() ? config.name() : ctx.model_name;
  model_ += "'";
}

Status ConfigErrors::At(std::string_view field, std::string_view problem,
                        std::string_view fix) const {
  std::string message = model_;
  if (!ctx_.file_label.empty()) {
    message += " (" + ctx_.file_label;
    if (ctx_.locations != nullptr) {
      if (auto position = ctx_.locations->Find(field)) {
        message += ":" + std::to_string(position->line) + ":" + std::to_string(position->column);
      }
    }
    message += ")";
  }
  message += ": ";
  message += field;
  message += ": ";
  message += problem;
  if (!fix.empty()) {
    message += kFixSeparator;
    message += fix;
  }
  return Status::InvalidArg(std::move(message));
}

std::string ElementLabel(std::string_view field, std::string_view name, int index) {
  std::string label(field);
  if (name.empty()) {
    label += "[" + std::to_string(index) + "]";
  } else {
    label += " '";
    label += name;
    label += "'";
  }
  return label;
}

namespace {

bool AllDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](char c) { return c >= '0' && c <= '9'; });
}

// "<file>:<line>:<col>" in problem->file: the position moves to line and column.
void SplitPosition(ConfigProblem* problem) {
  const std::string& file = problem->file;
  const size_t second = file.rfind(':');
  if (second == std::string::npos || second == 0) return;
  const size_t first = file.rfind(':', second - 1);
  if (first == std::string::npos) return;
  const std::string line = file.substr(first + 1, second - first - 1);
  const std::string column = file.substr(second + 1);
  if (!AllDigits(line) || !AllDigits(column)) return;
  problem->line = std::stoi(line);
  problem->column = std::stoi(column);
  problem->file.resize(first);
}

}  // namespace

ConfigProblem ParseConfigProblem(std::string_view text) {
  ConfigProblem problem;
  std::string message(text);
  if (const size_t fix = message.find(kFixSeparator); fix != std::string::npos) {
    problem.fix = message.substr(fix + kFixSeparator.size());
    message.resize(fix);
  }
  // At's shape; the field is what precedes the last ": " before the problem.
  static const std::regex kAt(R"(^(?:[^ :']+: )?model '([^']*)' \((.*?)\): (.*?): (.*)$)");
  // The parser's, after PlanModel's "<model>: ".
  static const std::regex kParse(R"(^([^:' ]+): (/?[^:]+):(\d+):(\d+): (.*)$)");
  static const std::regex kEnsemble(R"(^(?:[^ :']+: )?ensemble '([^']*)': (.*)$)");
  static const std::regex kModel(R"(^(?:[^ :']+: )?model '([^']*)')");
  std::smatch match;
  if (std::regex_match(message, match, kAt)) {
    problem.model = match[1];
    problem.file = match[2];
    problem.field = match[3];
    problem.message = match[4];
    SplitPosition(&problem);
  } else if (std::regex_match(message, match, kParse)) {
    problem.model = match[1];
    problem.file = match[2];
    problem.line = std::stoi(match[3]);
    problem.column = std::stoi(match[4]);
    problem.message = match[5];
  } else if (std::regex_match(message, match, kEnsemble)) {
    problem.model = match[1];
    problem.message = match[2];
  } else {
    if (std::regex_search(message, match, kModel)) problem.model = match[1];
    problem.message = message;
  }
  return problem;
}

}  // namespace inferd
