#include "generation_request.h"

#include "common/bytes_elements.h"
#include "common/entry_points.h"

namespace inferd::llamacpp {
namespace {

using backend_common::MakeError;

// A BYTES input's first element, or a BOOL input's first value.
INFERD_Error* InputBytes(INFERD_Request* request, const char* name, std::string* out, bool* present) {
  INFERD_Input* input = nullptr;
  *present = false;
  if (INFERD_Error* err = INFERD_RequestInput(request, name, &input)) {
    const bool missing = INFERD_ErrorCode(err) == INFERD_ERROR_NOT_FOUND;
    INFERD_ErrorDelete(err);
    return missing ? nullptr : MakeError(INFERD_ERROR_INTERNAL, std::string("input '") + name + "' unreadable");
  }
  uint32_t buffers = 0;
  if (INFERD_Error* err = INFERD_InputProperties(input, nullptr, nullptr, nullptr, nullptr, nullptr, &buffers)) return err;
  out->clear();
  for (uint32_t i = 0; i < buffers; ++i) {
    const void* data = nullptr;
    uint64_t size = 0;
    INFERD_MemoryType type;
    int64_t type_id = 0;
    if (INFERD_Error* err = INFERD_InputBuffer(input, i, &data, &size, &type, &type_id)) return err;
    out->append(static_cast<const char*>(data), size);
  }
  *present = true;
  return nullptr;
}

INFERD_Error* FirstString(INFERD_Request* request, const char* name, std::string* out, bool* present) {
  std::string raw;
  if (INFERD_Error* err = InputBytes(request, name, &raw, present)) return err;
  if (!*present) return nullptr;
  std::vector<std::string_view> elements;
  if (std::string problem = backend_common::SplitBytesElements(raw, &elements); !problem.empty()) {
    return MakeError(INFERD_ERROR_INVALID_ARG, std::string("input '") + name + "': " + problem);
  }
  if (elements.empty()) {
    return MakeError(INFERD_ERROR_INVALID_ARG, std::string("input '") + name + "' has no element");
  }
  out->assign(elements[0]);
  return nullptr;
}

INFERD_Error* Flag(INFERD_Request* request, const char* name, bool* out) {
  std::string raw;
  bool present = false;
  if (INFERD_Error* err = InputBytes(request, name, &raw, &present)) return err;
  if (present && !raw.empty()) *out = raw[0] != 0;
  return nullptr;
}

}  // namespace

INFERD_Error* ReadGenerationRequest(INFERD_Request* request, GenerationRequest* out) {
  bool present = false;
  if (INFERD_Error* err = FirstString(request, "text_input", &out->prompt, &present)) return err;
  if (!present) return MakeError(INFERD_ERROR_INVALID_ARG, "input 'text_input' is missing");
  for (auto [name, field] : {std::pair{"stream", &out->stream},
                             {"exclude_input_in_output", &out->exclude_input},
                             {"return_finish_reason", &out->return_finish_reason},
                             {"return_num_input_tokens", &out->return_num_input_tokens},
                             {"return_num_output_tokens", &out->return_num_output_tokens}}) {
    if (INFERD_Error* err = Flag(request, name, field)) return err;
  }
  std::string json;
  if (INFERD_Error* err = FirstString(request, "sampling_parameters", &json, &present)) return err;
  if (present && !json.empty()) {
    if (std::string problem = ParseSamplingJson(json, &out->sampling); !problem.empty()) {
      return MakeError(INFERD_ERROR_INVALID_ARG, "input 'sampling_parameters': " + problem);
    }
  }
  return nullptr;
}

}  // namespace inferd::llamacpp
