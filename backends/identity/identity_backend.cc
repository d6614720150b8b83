// The identity backend: every requested output OUTPUT<k> is a copy of input
// INPUT<k> (same datatype, shape and bytes), for any datatype including BYTES;
// an output named PARAMETERS (BYTES, dims [ -1 ]) lists the request's custom
// parameters as "name=value" elements.
// It exists to test and measure the server itself. Two model parameters help
// tests observe scheduling:
//   execute_delay_ms  each execution sleeps this long (as Triton's identity)
//   record_file       each execution appends one line to this file when it
//                     ends, before any of its responses is sent:
//                     "<instance> <rows> <start_ns> <end_ns> <id>,<id>,..."
// A third, fail_initialize_file, tests retried loads: while the file it names
// exists, model initialization fails and deletes it, so the next attempt
// succeeds.
// A request parameter "execute_delay_ms" (an integer, or a string holding one)
// overrides the model's delay for that request, so that a request sent later
// can finish executing first; an execution sleeps the longest delay among its
// requests (the model's delay for those that set none).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include <rapidjson/document.h>

#include "inferd/backend.h"
#include "inferd/base/mutex.h"

namespace {

// A delay in milliseconds, kept within a day so that a mistyped value cannot
// hold an instance for ever.
int ClampDelay(int64_t ms) { return static_cast<int>(std::clamp<int64_t>(ms, 0, 86'400'000)); }

// "250" -> 250; anything that is not a whole decimal number ("", "5s", "abc") -> none.
std::optional<int> ParseDelay(const char* text) {
  char* end = nullptr;
  const long long ms = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0') return std::nullopt;
  return ClampDelay(ms);
}

// Per-model settings read from the configuration's parameters.
struct ModelSettings {
  int execute_delay_ms = 0;
  std::string record_file;
  // Instances of one model append to one file: held while a line is written,
  // so lines never interleave. It guards the file, not a member.
  inferd::Mutex record_mu;
};

std::string StringParameter(const rapidjson::Document& config, const char* name) {
  if (!config.IsObject() || !config.HasMember("parameters")) return "";
  const auto& parameters = config["parameters"];
  if (!parameters.IsObject() || !parameters.HasMember(name)) return "";
  const auto& parameter = parameters[name];
  if (!parameter.IsObject() || !parameter.HasMember("string_value")) return "";
  return parameter["string_value"].GetString();
}

uint64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Appends one execution's line to the record file.
void Record(ModelSettings& settings, INFERD_ModelInstance* instance, INFERD_Request** requests,
            uint32_t count, uint64_t start_ns, uint64_t end_ns) {
  const char* instance_name = "";
  INFERD_ErrorDelete(INFERD_ModelInstanceName(instance, &instance_name));
  int64_t rows = 0;
  std::string ids;
  for (uint32_t r = 0; r < count; ++r) {
    INFERD_Input* input = nullptr;
    const int64_t* shape = nullptr;
    uint32_t dims = 0;
    if (INFERD_RequestInputByIndex(requests[r], 0, &input) == nullptr &&
        INFERD_InputProperties(input, nullptr, nullptr, &shape, &dims, nullptr, nullptr) ==
            nullptr) {
      rows += dims > 0 ? shape[0] : 1;
    }
    const char* id = "";
    INFERD_ErrorDelete(INFERD_RequestId(requests[r], &id));
    ids += (r ? "," : "") + std::string(*id ? id : "-");
  }
  inferd::MutexLock lock(&settings.record_mu);
  if (FILE* file = std::fopen(settings.record_file.c_str(), "a")) {
    std::fprintf(file, "%s %lld %llu %llu %s\n", instance_name, static_cast<long long>(rows),
                 static_cast<unsigned long long>(start_ns),
                 static_cast<unsigned long long>(end_ns), ids.c_str());
    std::fclose(file);
  }
}

// The request's "execute_delay_ms" parameter, else `model_delay_ms`.
int RequestDelayMs(INFERD_Request* request, int model_delay_ms) {
  uint32_t count = 0;
  if (INFERD_Error* err = INFERD_RequestParameterCount(request, &count)) {
    INFERD_ErrorDelete(err);
    return model_delay_ms;
  }
  for (uint32_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    INFERD_ParameterType type;
    const void* value = nullptr;
    if (INFERD_Error* err = INFERD_RequestParameter(request, i, &name, &type, &value)) {
      INFERD_ErrorDelete(err);
      continue;
    }
    if (std::strcmp(name, "execute_delay_ms") != 0) continue;
    if (type == INFERD_PARAMETER_INT) return ClampDelay(*static_cast<const int64_t*>(value));
    if (type == INFERD_PARAMETER_STRING) {
      if (auto parsed = ParseDelay(static_cast<const char*>(value))) return *parsed;
    }
  }
  return model_delay_ms;
}

// The input an output copies: OUTPUT<k> -> INPUT<k>; other names map to themselves.
std::string InputNameFor(const std::string& output) {
  static const std::string kOut = "OUTPUT";
  if (output.compare(0, kOut.size(), kOut) == 0) return "INPUT" + output.substr(kOut.size());
  return output;
}

// Output "PARAMETERS" (BYTES): one "name=value" element per request parameter,
// so tests can see what reached the backend.
INFERD_Error* EchoParameters(INFERD_Request* request, INFERD_Response* response,
                             const char* output_name) {
  uint32_t count = 0;
  if (INFERD_Error* err = INFERD_RequestParameterCount(request, &count)) return err;
  std::string data;
  for (uint32_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    INFERD_ParameterType type;
    const void* value = nullptr;
    if (INFERD_Error* err = INFERD_RequestParameter(request, i, &name, &type, &value)) return err;
    std::string text = std::string(name) + "=";
    switch (type) {
      case INFERD_PARAMETER_STRING: text += static_cast<const char*>(value); break;
      case INFERD_PARAMETER_INT: text += std::to_string(*static_cast<const int64_t*>(value)); break;
      case INFERD_PARAMETER_BOOL: text += *static_cast<const bool*>(value) ? "true" : "false"; break;
      case INFERD_PARAMETER_DOUBLE: {
        char number[32];
        std::snprintf(number, sizeof number, "%.17g", *static_cast<const double*>(value));
        text += number;
        break;
      }
    }
    const uint32_t length = static_cast<uint32_t>(text.size());
    data.append(reinterpret_cast<const char*>(&length), sizeof length);
    data += text;
  }
  const int64_t shape[] = {static_cast<int64_t>(count)};
  INFERD_Output* output = nullptr;
  if (INFERD_Error* err =
          INFERD_ResponseOutput(response, &output, output_name, INFERD_TYPE_BYTES, shape, 1)) {
    return err;
  }
  void* dst = nullptr;
  INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
  int64_t memory_type_id = 0;
  if (INFERD_Error* err =
          INFERD_OutputBuffer(output, &dst, data.size(), &memory_type, &memory_type_id)) {
    return err;
  }
  if (!data.empty()) std::memcpy(dst, data.data(), data.size());
  return nullptr;
}

// Fills `response` with a copy of each requested output's input.
INFERD_Error* CopyOutputs(INFERD_Request* request, INFERD_Response* response) {
  uint32_t output_count = 0;
  if (INFERD_Error* err = INFERD_RequestOutputCount(request, &output_count)) return err;
  for (uint32_t i = 0; i < output_count; ++i) {
    const char* output_name = nullptr;
    if (INFERD_Error* err = INFERD_RequestOutputName(request, i, &output_name)) return err;
    if (std::strcmp(output_name, "PARAMETERS") == 0) {
      if (INFERD_Error* err = EchoParameters(request, response, output_name)) return err;
      continue;
    }
    const std::string input_name = InputNameFor(output_name);
    INFERD_Input* input = nullptr;
    if (INFERD_RequestInput(request, input_name.c_str(), &input) != nullptr || input == nullptr) {
      const std::string msg = "identity backend: output '" + std::string(output_name) +
                              "' copies input '" + input_name + "', which the request lacks";
      return INFERD_ErrorNew(INFERD_ERROR_INVALID_ARG, msg.c_str());
    }
    INFERD_DataType datatype;
    const int64_t* shape = nullptr;
    uint32_t dim_count = 0;
    uint64_t byte_size = 0;
    uint32_t buffer_count = 0;
    if (INFERD_Error* err = INFERD_InputProperties(input, nullptr, &datatype, &shape, &dim_count,
                                                   &byte_size, &buffer_count)) {
      return err;
    }
    INFERD_Output* output = nullptr;
    if (INFERD_Error* err =
            INFERD_ResponseOutput(response, &output, output_name, datatype, shape, dim_count)) {
      return err;
    }
    void* dst = nullptr;
    INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
    int64_t memory_type_id = 0;
    if (INFERD_Error* err =
            INFERD_OutputBuffer(output, &dst, byte_size, &memory_type, &memory_type_id)) {
      return err;
    }
    char* cursor = static_cast<char*>(dst);
    for (uint32_t b = 0; b < buffer_count; ++b) {
      const void* src = nullptr;
      uint64_t size = 0;
      if (INFERD_Error* err = INFERD_InputBuffer(input, b, &src, &size, nullptr, nullptr)) {
        return err;
      }
      if (size > 0) std::memcpy(cursor, src, size);
      cursor += size;
    }
  }
  return nullptr;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInitialize(INFERD_Model* model) {
  INFERD_Message* message = nullptr;
  if (INFERD_Error* err = INFERD_ModelConfig(model, &message)) return err;
  const char* json = nullptr;
  size_t size = 0;
  INFERD_ErrorDelete(INFERD_MessageSerializeToJson(message, &json, &size));
  rapidjson::Document config;
  config.Parse(json, size);
  INFERD_MessageDelete(message);
  const std::string fail_file = StringParameter(config, "fail_initialize_file");
  if (!fail_file.empty() && std::remove(fail_file.c_str()) == 0) {
    const std::string msg = "model initialization failed on purpose: " + fail_file +
                            " existed (parameter fail_initialize_file); it is deleted now, so "
                            "the next attempt succeeds";
    return INFERD_ErrorNew(INFERD_ERROR_INTERNAL, msg.c_str());
  }
  auto* settings = new ModelSettings();
  const std::string delay = StringParameter(config, "execute_delay_ms");
  if (auto parsed = ParseDelay(delay.c_str())) settings->execute_delay_ms = *parsed;
  settings->record_file = StringParameter(config, "record_file");
  return INFERD_ModelSetState(model, settings);
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelFinalize(INFERD_Model* model) {
  void* state = nullptr;
  INFERD_ErrorDelete(INFERD_ModelState(model, &state));
  delete static_cast<ModelSettings*>(state);
  return nullptr;
}

// Execute keeps nothing per thread: the server may run it on the thread that
// submitted the request when the instance is idle (its executions are short).
__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInstanceInitialize(
    INFERD_ModelInstance* instance) {
  return INFERD_ModelInstanceSetExecuteOnAnyThread(instance, true);
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInstanceExecute(
    INFERD_ModelInstance* instance, INFERD_Request** requests, uint32_t request_count) {
  INFERD_Model* model = nullptr;
  void* state = nullptr;
  INFERD_ErrorDelete(INFERD_ModelInstanceModel(instance, &model));
  INFERD_ErrorDelete(INFERD_ModelState(model, &state));
  auto& settings = *static_cast<ModelSettings*>(state);
  const uint64_t start_ns = NowNs();
  int delay_ms = 0;
  for (uint32_t r = 0; r < request_count; ++r) {
    delay_ms = std::max(delay_ms, RequestDelayMs(requests[r], settings.execute_delay_ms));
  }
  if (delay_ms > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    // The delay stands for the model's computation; copying outputs after it
    // counts as compute_output.
    INFERD_ErrorDelete(INFERD_ModelInstanceReportComputeTimes(instance, start_ns, NowNs()));
  }
  if (!settings.record_file.empty()) {
    Record(settings, instance, requests, request_count, start_ns, NowNs());
  }
  for (uint32_t r = 0; r < request_count; ++r) {
    INFERD_Request* request = requests[r];
    INFERD_Response* response = nullptr;
    INFERD_Error* error = INFERD_ResponseNew(&response, request);
    if (error == nullptr) {
      error = CopyOutputs(request, response);
      INFERD_ErrorDelete(INFERD_ResponseSend(response, INFERD_RESPONSE_COMPLETE_FINAL, error));
    } else {
      INFERD_ErrorDelete(error);
    }
    INFERD_ErrorDelete(INFERD_RequestRelease(request, INFERD_REQUEST_RELEASE_ALL));
  }
  return nullptr;
}

}  // extern "C"
