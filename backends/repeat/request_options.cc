// Request parameters -> RequestOptions.
#include "request_options.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace inferd::repeat {
namespace {

constexpr int64_t kMaxDelayMs = 3'600'000;

int64_t ClampDelayMs(int64_t ms) { return std::clamp<int64_t>(ms, 0, kMaxDelayMs); }

// One parameter's value as the server hands it over (server.h INFERD_ParameterType).
struct Parameter {
  const char* name;
  INFERD_ParameterType type;
  const void* value;
};

INFERD_Error* WrongType(const ModelSettings& settings, const Parameter& parameter,
                        const char* expected) {
  const std::string message = "repeat backend: model '" + settings.model_name +
                              "': parameter '" + parameter.name + "' must be " + expected;
  return INFERD_ErrorNew(INFERD_ERROR_INVALID_ARG, message.c_str());
}

// Integers come as INT over both protocols; a string holding one is accepted
// too, as the model configuration can only hold strings.
INFERD_Error* ReadInteger(const ModelSettings& settings, const Parameter& parameter,
                          int64_t* out) {
  if (parameter.type == INFERD_PARAMETER_INT) {
    *out = *static_cast<const int64_t*>(parameter.value);
    return nullptr;
  }
  if (parameter.type == INFERD_PARAMETER_STRING) {
    const char* text = static_cast<const char*>(parameter.value);
    char* end = nullptr;
    const long long value = std::strtoll(text, &end, 10);
    if (end != text && *end == '\0') {
      *out = value;
      return nullptr;
    }
  }
  return WrongType(settings, parameter, "a whole number");
}

INFERD_Error* ReadBool(const ModelSettings& settings, const Parameter& parameter, bool* out) {
  if (parameter.type == INFERD_PARAMETER_BOOL) {
    *out = *static_cast<const bool*>(parameter.value);
    return nullptr;
  }
  if (parameter.type == INFERD_PARAMETER_STRING) {
    const char* text = static_cast<const char*>(parameter.value);
    if (std::strcmp(text, "true") == 0 || std::strcmp(text, "false") == 0) {
      *out = text[0] == 't';
      return nullptr;
    }
  }
  return WrongType(settings, parameter, "a boolean");
}

// Applies one parameter; parameters the backend does not know are ignored.
INFERD_Error* Apply(const ModelSettings& settings, const Parameter& parameter,
                    RequestOptions* options) {
  const std::string name = parameter.name;
  if (name == "delay_ms") {
    int64_t ms = 0;
    if (INFERD_Error* err = ReadInteger(settings, parameter, &ms)) return err;
    options->delay_ms = ClampDelayMs(ms);
    return nullptr;
  }
  if (name == "error_at") return ReadInteger(settings, parameter, &options->error_at);
  if (name == "final_with_last") return ReadBool(settings, parameter, &options->final_with_last);
  if (name == "abandon") return ReadBool(settings, parameter, &options->abandon);
  if (name == "send_after_final") {
    return ReadBool(settings, parameter, &options->send_after_final);
  }
  if (name == "hold") return ReadBool(settings, parameter, &options->hold);
  if (name == "record_file") {
    if (parameter.type != INFERD_PARAMETER_STRING) {
      return WrongType(settings, parameter, "a string");
    }
    options->record_file = static_cast<const char*>(parameter.value);
  }
  return nullptr;
}

}  // namespace

bool ParseDelayMs(const char* text, int64_t* delay_ms) {
  char* end = nullptr;
  const long long ms = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0') return false;
  *delay_ms = ClampDelayMs(ms);
  return true;
}

INFERD_Error* ReadRequestOptions(INFERD_Request* request, const ModelSettings& settings,
                                 RequestOptions* options) {
  *options = RequestOptions{};
  options->delay_ms = settings.delay_ms;
  options->record_file = settings.record_file;
  uint32_t count = 0;
  if (INFERD_Error* err = INFERD_RequestParameterCount(request, &count)) return err;
  for (uint32_t i = 0; i < count; ++i) {
    Parameter parameter{};
    if (INFERD_Error* err = INFERD_RequestParameter(request, i, &parameter.name, &parameter.type,
                                                    &parameter.value)) {
      return err;
    }
    if (INFERD_Error* err = Apply(settings, parameter, options)) return err;
  }
  return nullptr;
}

}  // namespace inferd::repeat
