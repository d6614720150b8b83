// The identity backend: every requested output OUTPUT<k> is a copy of input
// INPUT<k> (same datatype, shape and bytes), for any datatype including BYTES.
// It keeps no state and exists to test and measure the server itself.
#include <cstring>
#include <string>

#include "inferd/backend.h"

namespace {

// The input an output copies: OUTPUT<k> -> INPUT<k>; other names map to themselves.
std::string InputNameFor(const std::string& output) {
  static const std::string kOut = "OUTPUT";
  if (output.compare(0, kOut.size(), kOut) == 0) return "INPUT" + output.substr(kOut.size());
  return output;
}

// Fills `response` with a copy of each requested output's input.
INFERD_Error* CopyOutputs(INFERD_Request* request, INFERD_Response* response) {
  uint32_t output_count = 0;
  if (INFERD_Error* err = INFERD_RequestOutputCount(request, &output_count)) return err;
  for (uint32_t i = 0; i < output_count; ++i) {
    const char* output_name = nullptr;
    if (INFERD_Error* err = INFERD_RequestOutputName(request, i, &output_name)) return err;
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

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInstanceExecute(
    INFERD_ModelInstance* instance, INFERD_Request** requests, uint32_t request_count) {
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
