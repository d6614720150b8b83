// Fuzz target: a config.pbtxt as a user writes it, through the loader's own
// steps (parse, normalize with Triton's defaults, validate), and the same
// bytes as the JSON config a repository-API load may carry as an override.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/config/config_context.h"
#include "core/config/model_config_json.h"
#include "core/config/model_config_normalizer.h"
#include "core/config/model_config_parser.h"
#include "core/config/model_config_validator.h"

namespace {

void Check(inference::ModelConfig config) {
  inferd::ConfigContext context;
  context.model_name = "fuzzed";
  context.file_label = "fuzz/config.pbtxt";
  context.allow_incomplete_io = (config.input_size() + config.output_size()) % 2 == 0;
  if (!inferd::NormalizeModelConfig(context, &config).ok()) return;
  if (!inferd::ValidateModelConfig(context, config).ok()) return;
  (void)inferd::ModelConfigToJson(config);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = inferd::ParseModelConfigText(text, "fuzz/config.pbtxt");
  if (parsed.ok()) Check(std::move(parsed).value());
  inference::ModelConfig from_json;
  if (inferd::ModelConfigFromJson(text, &from_json).ok()) Check(std::move(from_json));
  return 0;
}
