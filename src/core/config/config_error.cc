#include "core/config/config_error.h"

namespace inferd {

ConfigErrors::ConfigErrors(const ConfigContext& ctx, const inference::ModelConfig& config)
    : ctx_(ctx), config_(config) {
  prefix_ = "model '";
  prefix_ += ctx.model_name.empty() ? config.name() : ctx.model_name;
  prefix_ += "'";
  if (!ctx.file_label.empty()) {
    prefix_ += " (" + ctx.file_label + ")";
  }
  prefix_ += ": ";
}

Status ConfigErrors::At(std::string_view field, std::string_view problem) const {
  std::string message = prefix_;
  message += field;
  message += ": ";
  message += problem;
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

}  // namespace inferd
