// Reading requests for a batched forward() call (see request_batch.h).
#include "request_batch.h"

#include <algorithm>
#include <cstring>

namespace inferd::pytorch {

INFERD_Error* MakeError(INFERD_Error_Code code, const std::string& message) {
  return INFERD_ErrorNew(code, message.c_str());
}

INFERD_Error* PrepareRequest(const ModelSettings& settings, INFERD_Request* request,
                             BatchedRequest* out) {
  out->request = request;
  out->inputs.assign(settings.inputs.size(), RequestInput{});
  for (size_t i = 0; i < settings.inputs.size(); ++i) {
    const TensorSpec& spec = settings.inputs[i];
    RequestInput& in = out->inputs[i];
    if (INFERD_Error* err = INFERD_RequestInput(request, spec.name.c_str(), &in.input)) {
      INFERD_ErrorDelete(err);
      return MakeError(INFERD_ERROR_INVALID_ARG, "the request lacks input '" + spec.name + "'");
    }
    INFERD_DataType datatype = INFERD_TYPE_INVALID;
    if (INFERD_Error* err = INFERD_InputProperties(in.input, nullptr, &datatype, &in.shape,
                                                   &in.rank, &in.byte_size, &in.buffer_count)) {
      return err;
    }
    if (datatype != spec.type->datatype) {
      return MakeError(INFERD_ERROR_INVALID_ARG,
                       "input '" + spec.name + "' is " + INFERD_DataTypeString(datatype) +
                           " but the model expects " + INFERD_DataTypeString(spec.type->datatype));
    }
    if (spec.type->byte_size > 0) {
      const uint64_t want =
          static_cast<uint64_t>(ElementCount(in.shape, in.rank)) * spec.type->byte_size;
      if (in.byte_size != want) {
        return MakeError(INFERD_ERROR_INVALID_ARG,
                         "input '" + spec.name + "' has " + std::to_string(in.byte_size) +
                             " bytes of data but its shape " + ShapeString(in.shape, in.rank) +
                             " needs " + std::to_string(want));
      }
    }
    if (!settings.batching()) continue;
    if (in.rank == 0) {
      return MakeError(INFERD_ERROR_INVALID_ARG, "input '" + spec.name + "' has no batch dimension");
    }
    if (i == 0) {
      out->rows = in.shape[0];
    } else if (in.shape[0] != out->rows) {
      return MakeError(INFERD_ERROR_INVALID_ARG,
                       "input '" + spec.name + "' has " + std::to_string(in.shape[0]) +
                           " rows but input '" + settings.inputs[0].name + "' has " +
                           std::to_string(out->rows));
    }
  }
  return nullptr;
}

bool SameRowShape(const BatchedRequest& a, const BatchedRequest& b) {
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    const RequestInput& x = a.inputs[i];
    const RequestInput& y = b.inputs[i];
    if (x.rank != y.rank || x.rank == 0) return false;
    if (!std::equal(x.shape + 1, x.shape + x.rank, y.shape + 1)) return false;
  }
  return true;
}

int64_t ElementCount(const int64_t* dims, size_t rank) {
  int64_t count = 1;
  for (size_t d = 0; d < rank; ++d) count *= dims[d];
  return count;
}

std::string ShapeString(const int64_t* dims, size_t rank) {
  std::string text = "[";
  for (size_t d = 0; d < rank; ++d) {
    if (d > 0) text += ",";
    text += std::to_string(dims[d]);
  }
  return text + "]";
}

std::string SplitBytesElements(std::string_view data, std::vector<std::string_view>* out) {
  size_t offset = 0;
  while (offset < data.size()) {
    if (data.size() - offset < 4) {
      return "element " + std::to_string(out->size()) + " has a truncated 4-byte length";
    }
    const auto* p = reinterpret_cast<const unsigned char*>(data.data() + offset);
    const uint32_t length = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
                            static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
    offset += 4;
    if (length > data.size() - offset) {
      return "element " + std::to_string(out->size()) + " claims " + std::to_string(length) +
             " bytes but " + std::to_string(data.size() - offset) + " remain";
    }
    out->push_back(data.substr(offset, length));
    offset += length;
  }
  return "";
}

char* WriteBytesElement(char* dst, std::string_view element) {
  const auto length = static_cast<uint32_t>(element.size());
  for (int b = 0; b < 4; ++b) dst[b] = static_cast<char>((length >> (8 * b)) & 0xFF);
  if (!element.empty()) std::memcpy(dst + 4, element.data(), element.size());
  return dst + 4 + element.size();
}

void RespondWithError(INFERD_Request* request, INFERD_Error* error, const std::string& prefix) {
  INFERD_Response* response = nullptr;
  if (INFERD_Error* err = INFERD_ResponseNew(&response, request)) {
    INFERD_ErrorDelete(err);
    return;
  }
  INFERD_Error* prefixed =
      MakeError(INFERD_ErrorCode(error), prefix + INFERD_ErrorMessage(error));
  INFERD_ErrorDelete(INFERD_ResponseSend(response, INFERD_RESPONSE_COMPLETE_FINAL, prefixed));
}

}  // namespace inferd::pytorch
