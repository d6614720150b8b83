// Control inputs -> Controls.
#include "controls.h"

#include <cstring>

#include "input_bytes.h"

namespace inferd::accumulate {
namespace {

INFERD_Error* ControlError(const ModelSettings& settings, const std::string& input,
                           const std::string& what) {
  const std::string message = "accumulate backend: model '" + settings.model_name +
                              "': control input '" + input + "' " + what;
  return INFERD_ErrorNew(INFERD_ERROR_INVALID_ARG, message.c_str());
}

// The raw bytes of a configured control input, which the server must fill.
INFERD_Error* ControlBytes(INFERD_Request* request, const ModelSettings& settings,
                           const std::string& input, INFERD_DataType want, std::string* bytes) {
  bool found = false;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  if (INFERD_Error* err = ReadInputBytes(request, input, &found, &datatype, bytes)) return err;
  if (!found) return ControlError(settings, input, "is missing: the server did not fill it");
  if (datatype != want) {
    return ControlError(settings, input, std::string("is ") + INFERD_DataTypeString(datatype) +
                                             ", the configuration says " +
                                             INFERD_DataTypeString(want));
  }
  if (bytes->empty()) return ControlError(settings, input, "holds no value");
  return nullptr;
}

// Whether the first element of a START, END or READY input is its "true" value.
INFERD_Error* ReadFlag(INFERD_Request* request, const ModelSettings& settings,
                       const FlagControl& flag, bool* value) {
  std::string bytes;
  if (INFERD_Error* err = ControlBytes(request, settings, flag.input, flag.datatype, &bytes)) {
    return err;
  }
  double element = 0;
  if (flag.datatype == INFERD_TYPE_FP32 && bytes.size() >= sizeof(float)) {
    float f = 0;
    std::memcpy(&f, bytes.data(), sizeof f);
    element = f;
  } else if (flag.datatype == INFERD_TYPE_INT32 && bytes.size() >= sizeof(int32_t)) {
    int32_t i = 0;
    std::memcpy(&i, bytes.data(), sizeof i);
    element = i;
  } else if (flag.datatype == INFERD_TYPE_BOOL) {
    element = bytes[0] != 0 ? 1 : 0;
  } else {
    return ControlError(settings, flag.input, "holds a partial value");
  }
  *value = element == flag.true_value;
  return nullptr;
}

// The sequence id from the CORRID input: a UINT64, or one BYTES element
// (4-byte little-endian length, then the bytes).
INFERD_Error* ReadCorrId(INFERD_Request* request, const ModelSettings& settings,
                         Controls* controls) {
  std::string bytes;
  if (INFERD_Error* err = ControlBytes(request, settings, settings.corrid.input,
                                       settings.corrid.datatype, &bytes)) {
    return err;
  }
  if (settings.corrid.datatype == INFERD_TYPE_UINT64) {
    if (bytes.size() < sizeof(uint64_t)) {
      return ControlError(settings, settings.corrid.input, "holds a partial UINT64");
    }
    std::memcpy(&controls->numeric, bytes.data(), sizeof(uint64_t));
    controls->key = std::to_string(controls->numeric);
    return nullptr;
  }
  uint32_t length = 0;
  if (bytes.size() >= sizeof length) {
    std::memcpy(&length, bytes.data(), sizeof length);  // little-endian hosts only
  }
  if (bytes.size() < sizeof length || bytes.size() - sizeof length < length) {
    return ControlError(settings, settings.corrid.input, "holds a malformed BYTES element");
  }
  controls->numeric = 0;
  controls->key = bytes.substr(sizeof length, length);
  return nullptr;
}

}  // namespace

INFERD_Error* ReadControls(INFERD_Request* request, const ModelSettings& settings,
                           Controls* controls) {
  uint32_t flags = 0;
  if (INFERD_Error* err = INFERD_RequestFlags(request, &flags)) return err;
  controls->start = (flags & INFERD_REQUEST_FLAG_SEQUENCE_START) != 0;
  controls->end = (flags & INFERD_REQUEST_FLAG_SEQUENCE_END) != 0;
  controls->ready = true;
  if (!settings.start.input.empty()) {
    if (INFERD_Error* err = ReadFlag(request, settings, settings.start, &controls->start)) {
      return err;
    }
  }
  if (!settings.end.input.empty()) {
    if (INFERD_Error* err = ReadFlag(request, settings, settings.end, &controls->end)) return err;
  }
  if (!settings.ready.input.empty()) {
    if (INFERD_Error* err = ReadFlag(request, settings, settings.ready, &controls->ready)) {
      return err;
    }
  }
  if (!settings.corrid.input.empty()) return ReadCorrId(request, settings, controls);
  if (INFERD_Error* err = INFERD_RequestCorrelationId(request, &controls->numeric)) return err;
  controls->key = std::to_string(controls->numeric);
  return nullptr;
}

}  // namespace inferd::accumulate
