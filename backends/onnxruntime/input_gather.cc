// Gathering request inputs into ONNX Runtime tensors (see input_gather.h).
#include "input_gather.h"

#include <cstdint>
#include <cstring>

#include "bytes_codec.h"
#include "shapes.h"

namespace inferd::onnxruntime {
namespace {

// `reshape` with its one -1 (if any) resolved so it holds `elements` elements.
std::vector<int64_t> ResolveReshape(const std::vector<int64_t>& reshape, int64_t elements) {
  std::vector<int64_t> shape = reshape;
  int64_t fixed = 1;
  for (int64_t dim : shape) fixed *= dim >= 0 ? dim : 1;
  for (int64_t& dim : shape) {
    if (dim < 0) dim = fixed > 0 ? elements / fixed : 0;
  }
  return shape;
}

// The shape the model sees for one input in a run: the first request's
// dimensions (batch one replaced by the run's rows), reshaped when configured.
std::vector<int64_t> RunShape(const ModelSettings& settings, const TensorSpec& spec,
                              const RequestInput& first, int64_t rows) {
  const size_t skip = settings.batching() ? 1 : 0;
  std::vector<int64_t> shape(first.shape + skip, first.shape + first.rank);
  if (spec.reshape) shape = ResolveReshape(*spec.reshape, ElementCount(shape));
  if (settings.batching()) shape.insert(shape.begin(), rows);
  return shape;
}

std::string Where(const TensorSpec& spec) { return "input '" + spec.name + "'"; }

}  // namespace

INFERD_Error* InputGather::Gather(INFERD_ModelInstance* instance, const ModelSettings& settings,
                                  std::span<const BatchedRequest> requests,
                                  std::vector<OrtPtr<OrtValue>>* values) {
  if (!cpu_memory_) {
    OrtMemoryInfo* info = nullptr;
    if (auto* err = OrtError(Ort().CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &info),
                             "ONNX Runtime")) {
      return err;
    }
    cpu_memory_.reset(info);
  }
  if (buffers_.size() < settings.inputs.size()) buffers_.resize(settings.inputs.size());
  int64_t rows = 0;
  for (const BatchedRequest& request : requests) rows += request.rows;
  values->clear();
  values->resize(settings.inputs.size());
  for (size_t i = 0; i < settings.inputs.size(); ++i) {
    const TensorSpec& spec = settings.inputs[i];
    const std::vector<int64_t> shape = RunShape(settings, spec, requests[0].inputs[i], rows);
    INFERD_Error* err = spec.type->byte_size == 0
                            ? GatherStrings(spec, i, requests, shape, &(*values)[i])
                            : GatherNumeric(instance, spec, i, requests, shape, &(*values)[i]);
    if (err != nullptr) return err;
  }
  return nullptr;
}

INFERD_Error* InputGather::GatherNumeric(INFERD_ModelInstance* instance, const TensorSpec& spec,
                                         size_t index,
                                         std::span<const BatchedRequest> requests,
                                         const std::vector<int64_t>& shape,
                                         OrtPtr<OrtValue>* value) {
  const uint64_t element_size = spec.type->byte_size;
  const uint64_t total = static_cast<uint64_t>(ElementCount(shape)) * element_size;
  for (const BatchedRequest& request : requests) {
    const RequestInput& in = request.inputs[index];
    const uint64_t want = static_cast<uint64_t>(ElementCount(in.shape, in.rank)) * element_size;
    if (in.byte_size != want) {
      return MakeError(INFERD_ERROR_INVALID_ARG,
                       Where(spec) + " has " + std::to_string(in.byte_size) +
                           " bytes of data but its shape " +
                           ShapeString({in.shape, in.shape + in.rank}) + " needs " +
                           std::to_string(want));
    }
  }
  void* data = nullptr;
  const RequestInput& first = requests[0].inputs[index];
  if (requests.size() == 1 && first.buffer_count == 1) {
    const void* buffer = nullptr;
    uint64_t size = 0;
    if (auto* err = INFERD_InputBuffer(first.input, 0, &buffer, &size, nullptr, nullptr)) {
      return err;
    }
    // ORT kernels read elements through typed pointers: borrow only aligned memory.
    if (buffer != nullptr && reinterpret_cast<uintptr_t>(buffer) % element_size == 0) {
      data = const_cast<void*>(buffer);
    }
  }
  if (data == nullptr) {
    std::vector<char>& scratch = buffers_[index];
    if (scratch.size() < total + 1) scratch.resize(total + 1);  // never empty: data != null
    char* cursor = scratch.data();
    copies_.clear();
    for (const BatchedRequest& request : requests) {
      const RequestInput& in = request.inputs[index];
      for (uint32_t b = 0; b < in.buffer_count; ++b) {
        const void* buffer = nullptr;
        uint64_t size = 0;
        if (auto* err = INFERD_InputBuffer(in.input, b, &buffer, &size, nullptr, nullptr)) {
          return err;
        }
        if (size > 0) copies_.push_back({cursor, buffer, size});
        cursor += size;
      }
    }
    if (auto* err = INFERD_ModelInstanceCopyBuffers(instance, copies_.data(),
                                                    static_cast<uint32_t>(copies_.size()))) {
      return err;
    }
    data = scratch.data();
  }
  OrtValue* raw = nullptr;
  if (auto* err = OrtError(Ort().CreateTensorWithDataAsOrtValue(cpu_memory_.get(), data, total,
                                                                 shape.data(), shape.size(),
                                                                 spec.type->onnx, &raw),
                           Where(spec))) {
    return err;
  }
  value->reset(raw);
  return nullptr;
}

INFERD_Error* InputGather::InputBytes(const RequestInput& in, std::string_view* bytes) {
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

INFERD_Error* InputGather::GatherStrings(const TensorSpec& spec, size_t index,
                                         std::span<const BatchedRequest> requests,
                                         const std::vector<int64_t>& shape,
                                         OrtPtr<OrtValue>* value) {
  const OrtApi& ort = Ort();
  OrtAllocator* allocator = nullptr;
  if (auto* err = OrtError(ort.GetAllocatorWithDefaultOptions(&allocator), Where(spec))) return err;
  OrtValue* raw = nullptr;
  if (auto* err = OrtError(ort.CreateTensorAsOrtValue(allocator, shape.data(), shape.size(),
                                                       ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, &raw),
                           Where(spec))) {
    return err;
  }
  value->reset(raw);
  size_t next = 0;
  for (const BatchedRequest& request : requests) {
    const RequestInput& in = request.inputs[index];
    std::string_view bytes;
    if (auto* err = InputBytes(in, &bytes)) return err;
    elements_.clear();
    if (std::string problem = SplitBytesElements(bytes, &elements_); !problem.empty()) {
      return MakeError(INFERD_ERROR_INVALID_ARG, Where(spec) + " (BYTES): " + problem);
    }
    const auto want = static_cast<size_t>(ElementCount(in.shape, in.rank));
    if (elements_.size() != want) {
      return MakeError(INFERD_ERROR_INVALID_ARG,
                       Where(spec) + " holds " + std::to_string(elements_.size()) +
                           " BYTES elements but its shape " +
                           ShapeString({in.shape, in.shape + in.rank}) + " needs " +
                           std::to_string(want));
    }
    for (std::string_view element : elements_) {
      char* dst = nullptr;
      if (auto* err = OrtError(
              ort.GetResizedStringTensorElementBuffer(raw, next++, element.size(), &dst),
              Where(spec))) {
        return err;
      }
      if (!element.empty()) std::memcpy(dst, element.data(), element.size());
    }
  }
  return nullptr;
}

}  // namespace inferd::onnxruntime
