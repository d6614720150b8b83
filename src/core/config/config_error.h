// The one shape of a configuration error, so every message names the model,
// the file and the field the same way:
//   model 'simple' (/repo/simple/config.pbtxt): input 'INPUT0' dims[1]: must be -1 or positive, got 0
// Immutable after construction; thread-safe.
#ifndef INFERD_CORE_CONFIG_CONFIG_ERROR_H_
#define INFERD_CORE_CONFIG_CONFIG_ERROR_H_

#include <string>
#include <string_view>

#include "inferd/base/status.h"
#include "core/config/config_context.h"
#include "model_config.pb.h"

namespace inferd {

// Makes the InvalidArg errors of one model's configuration.
class ConfigErrors {
 public:
  // The model is ctx.model_name, or config.name() when that is empty; the
  // file part is left out when ctx.file_label is empty. Both are borrowed.
  ConfigErrors(const ConfigContext& ctx, const inference::ModelConfig& config);

  // InvalidArg "model '<model>' (<file>): <field>: <problem>".
  Status At(std::string_view field, std::string_view problem) const;

  const ConfigContext& ctx() const { return ctx_; }
  const inference::ModelConfig& config() const { return config_; }

 private:
  const ConfigContext& ctx_;
  const inference::ModelConfig& config_;
  std::string prefix_;  //!< "model '<model>' (<file>): "
};

// How a field path names one element of a repeated field: "input 'x'" when
// it has a name, "input[2]" when the name is empty.
std::string ElementLabel(std::string_view field, std::string_view name, int index);

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_CONFIG_ERROR_H_
