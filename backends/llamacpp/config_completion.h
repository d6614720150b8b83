// Auto-completion of a llamacpp model's configuration (on unless the server
// runs with --disable-auto-complete-config): a configuration that names only
// the backend gets the OpenAI tensor convention's inputs and outputs and a
// decoupled transaction policy, and one without a `chat_template` parameter
// gets the built-in template name that matches the GGUF's own template, so
// the OpenAI frontend formats chats as the model was trained. Pure.
#ifndef INFERD_BACKENDS_LLAMACPP_CONFIG_COMPLETION_H_
#define INFERD_BACKENDS_LLAMACPP_CONFIG_COMPLETION_H_

#include <string>
#include <string_view>

#include "sequence.h"

namespace inferd::llamacpp {

// The completed configuration's JSON, or "" when `config_json` needs nothing
// added. `chat_template`: the GGUF's template as a built-in name, or "".
std::string CompleteConfig(std::string_view config_json, const std::string& chat_template);

// Which of the convention's optional outputs the configuration declares.
DeclaredOutputs ReadDeclaredOutputs(std::string_view config_json);

}  // namespace inferd::llamacpp

#endif  // INFERD_BACKENDS_LLAMACPP_CONFIG_COMPLETION_H_
