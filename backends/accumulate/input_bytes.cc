// Gathering a request input's buffers.
#include "input_bytes.h"

#include <cstring>

namespace inferd::accumulate {

INFERD_Error* ReadInputBytes(INFERD_Request* request, const std::string& name, bool* found,
                             INFERD_DataType* datatype, std::string* bytes) {
  *found = false;
  bytes->clear();
  INFERD_Input* input = nullptr;
  if (INFERD_Error* err = INFERD_RequestInput(request, name.c_str(), &input)) {
    // NOT_FOUND: the request lacks the input; the caller decides.
    INFERD_ErrorDelete(err);
    return nullptr;
  }
  uint32_t buffer_count = 0;
  if (INFERD_Error* err = INFERD_InputProperties(input, nullptr, datatype, nullptr, nullptr,
                                                 nullptr, &buffer_count)) {
    return err;
  }
  for (uint32_t b = 0; b < buffer_count; ++b) {
    const void* data = nullptr;
    uint64_t size = 0;
    if (INFERD_Error* err = INFERD_InputBuffer(input, b, &data, &size, nullptr, nullptr)) {
      return err;
    }
    bytes->append(static_cast<const char*>(data), size);
  }
  *found = true;
  return nullptr;
}

INFERD_Error* ReadInt32Input(INFERD_Request* request, const std::string& name, int32_t* value) {
  *value = 0;
  bool found = false;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  std::string bytes;
  if (INFERD_Error* err = ReadInputBytes(request, name, &found, &datatype, &bytes)) return err;
  if (!found) return nullptr;
  if (datatype != INFERD_TYPE_INT32 || bytes.size() < sizeof(int32_t)) {
    const std::string message = "accumulate backend: input '" + name +
                                "' must hold one INT32 value, got " +
                                INFERD_DataTypeString(datatype) + " of " +
                                std::to_string(bytes.size()) + " bytes";
    return INFERD_ErrorNew(INFERD_ERROR_INVALID_ARG, message.c_str());
  }
  std::memcpy(value, bytes.data(), sizeof(int32_t));
  return nullptr;
}

}  // namespace inferd::accumulate
