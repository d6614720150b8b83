// The one shape of a configuration error, so every message names the model,
// the file (with the line and column the field was written at) and the field
// the same way, and says how to fix it where there is a likely fix:
//   model 'simple' (/repo/simple/config.pbtxt:7:12): input 'INPUT0' dims[1]:
//   must be -1 or positive, got 0; fix: -1 for a size that varies, else the size
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

  // InvalidArg "model '<model>' (<file>[:<line>:<col>]): <field>: <problem>"
  // followed by kFixSeparator and `fix` when `fix` is not empty.
  Status At(std::string_view field, std::string_view problem, std::string_view fix = {}) const;

  const ConfigContext& ctx() const { return ctx_; }
  const inference::ModelConfig& config() const { return config_; }

 private:
  const ConfigContext& ctx_;
  const inference::ModelConfig& config_;
  std::string model_;  //!< "model '<model>'"
};

// What separates an error from the suggested fix in every config message.
inline constexpr std::string_view kFixSeparator = "; fix: ";

// A configuration error taken apart again (for inferd check's JSON): any part
// the message does not have is empty or 0.
struct ConfigProblem {
  std::string file;
  int line = 0;
  int column = 0;
  std::string model;
  std::string field;
  std::string message;  //!< the problem, without the fix
  std::string fix;
};

// Reads the message shapes the config code writes: At's, the parser's
// "<file>:<line>:<col>: <message>" (after "<model>: "), or anything else (then
// only `message`, and `model` when it starts "model '<name>'").
ConfigProblem ParseConfigProblem(std::string_view message);

// How a field path names one element of a repeated field: "input 'x'" when
// it has a name, "input[2]" when the name is empty.
std::string ElementLabel(std::string_view field, std::string_view name, int index);

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_CONFIG_ERROR_H_
