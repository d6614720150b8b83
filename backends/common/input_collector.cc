// Collecting request inputs for a run (see input_collector.h).
#include "common/input_collector.h"

#include <cstdint>

#include "common/bytes_elements.h"
#include "common/entry_points.h"
#include "common/shapes.h"

namespace inferd::backend_common {

INFERD_Error* BorrowInput(Batch batch, size_t index, size_t alignment, void** data) {
  *data = nullptr;
  const RequestInput& first = batch[0].inputs[index];
  if (batch.size() != 1 || first.buffer_count != 1) return nullptr;
  const void* buffer = nullptr;
  uint64_t size = 0;
  if (auto* err = INFERD_InputBuffer(first.input, 0, &buffer, &size, nullptr, nullptr)) {
    return err;
  }
  if (buffer != nullptr && reinterpret_cast<uintptr_t>(buffer) % alignment == 0) {
    *data = const_cast<void*>(buffer);
  }
  return nullptr;
}

INFERD_Error* CopyInputRows(INFERD_ModelInstance* instance, Batch batch, size_t index, char* dst,
                            std::vector<INFERD_MemoryCopy>* copies) {
  copies->clear();
  for (const BatchedRequest& request : batch) {
    const RequestInput& in = request.inputs[index];
    for (uint32_t b = 0; b < in.buffer_count; ++b) {
      const void* buffer = nullptr;
      uint64_t size = 0;
      if (auto* err = INFERD_InputBuffer(in.input, b, &buffer, &size, nullptr, nullptr)) {
        return err;
      }
      if (size > 0) copies->push_back({dst, buffer, size});
      dst += size;
    }
  }
  return INFERD_ModelInstanceCopyBuffers(instance, copies->data(),
                                         static_cast<uint32_t>(copies->size()));
}

INFERD_Error* BytesInputReader::InputBytes(const RequestInput& in, std::string_view* bytes) {
  if (in.buffer_count == 1) {
    const void* buffer = nullptr;
    uint64_t size = 0;
    if (auto* err = INFERD_InputBuffer(in.input, 0, &buffer, &size, nullptr, nullptr)) return err;
    *bytes = std::string_view(static_cast<const char*>(buffer), size);
    return nullptr;
  }
  joined_.clear();
  for (uint32_t b = 0; b < in.buffer_count; ++b) {
    const void* buffer = nullptr;
    uint64_t size = 0;
    if (auto* err = INFERD_InputBuffer(in.input, b, &buffer, &size, nullptr, nullptr)) return err;
    joined_.append(static_cast<const char*>(buffer), size);
  }
  *bytes = joined_;
  return nullptr;
}

INFERD_Error* BytesInputReader::Elements(const TensorSpec& spec, const RequestInput& in,
                                         const std::vector<std::string_view>** elements) {
  std::string_view bytes;
  if (auto* err = InputBytes(in, &bytes)) return err;
  elements_.clear();
  if (std::string problem = SplitBytesElements(bytes, &elements_); !problem.empty()) {
    return MakeError(INFERD_ERROR_INVALID_ARG, "input '" + spec.name + "' (BYTES): " + problem);
  }
  const auto want = static_cast<size_t>(ElementCount(in.shape, in.rank));
  if (elements_.size() != want) {
    return MakeError(INFERD_ERROR_INVALID_ARG,
                     "input '" + spec.name + "' holds " + std::to_string(elements_.size()) +
                         " BYTES elements but its shape " + ShapeString(in.shape, in.rank) +
                         " needs " + std::to_string(want));
  }
  *elements = &elements_;
  return nullptr;
}

}  // namespace inferd::backend_common
