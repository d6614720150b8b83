// Gathering request inputs into ONNX Runtime tensors (see input_gather.h).
#include "input_gather.h"

#include <cstdint>
#include <cstring>

#include "common/shapes.h"

namespace inferd::onnxruntime {
namespace {

using backend_common::ElementCount;

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
                                  Batch batch, std::vector<OrtPtr<OrtValue>>* values) {
  if (!cpu_memory_) {
    OrtMemoryInfo* info = nullptr;
    if (auto* err = OrtError(Ort().CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &info),
                             "ONNX Runtime")) {
      return err;
    }
    cpu_memory_.reset(info);
  }
  if (buffers_.size() < settings.inputs.size()) buffers_.resize(settings.inputs.size());
  const int64_t rows = batch.rows();
  values->clear();
  values->resize(settings.inputs.size());
  for (size_t i = 0; i < settings.inputs.size(); ++i) {
    const TensorSpec& spec = settings.inputs[i];
    const std::vector<int64_t> shape = RunShape(settings, spec, batch[0].inputs[i], rows);
    INFERD_Error* err = spec.type->byte_size == 0
                            ? GatherStrings(spec, i, batch, shape, &(*values)[i])
                            : GatherNumeric(instance, spec, i, batch, shape, &(*values)[i]);
    if (err != nullptr) return err;
  }
  return nullptr;
}

INFERD_Error* InputGather::NumericData(INFERD_ModelInstance* instance, const TensorSpec& spec,
                                       size_t index, Batch batch, uint64_t total, void** data) {
  if (auto* err = backend_common::BorrowInput(batch, index, spec.type->byte_size, data)) {
    return err;
  }
  if (*data != nullptr) return nullptr;
  std::vector<char>& scratch = buffers_[index];
  if (scratch.size() < total + 1) scratch.resize(total + 1);  // never empty: data != null
  if (auto* err =
          backend_common::CopyInputRows(instance, batch, index, scratch.data(), &copies_)) {
    return err;
  }
  *data = scratch.data();
  return nullptr;
}

INFERD_Error* InputGather::GatherNumeric(INFERD_ModelInstance* instance, const TensorSpec& spec,
                                         size_t index, Batch batch,
                                         const std::vector<int64_t>& shape,
                                         OrtPtr<OrtValue>* value) {
  for (const BatchedRequest& request : batch) {
    if (auto* err = backend_common::CheckDataSize(spec, request.inputs[index])) return err;
  }
  const uint64_t total = static_cast<uint64_t>(ElementCount(shape)) * spec.type->byte_size;
  void* data = nullptr;
  if (auto* err = NumericData(instance, spec, index, batch, total, &data)) return err;
  OrtValue* raw = nullptr;
  if (auto* err = OrtError(Ort().CreateTensorWithDataAsOrtValue(cpu_memory_.get(), data, total,
                                                                 shape.data(), shape.size(),
                                                                 OnnxType(*spec.type), &raw),
                           Where(spec))) {
    return err;
  }
  value->reset(raw);
  return nullptr;
}

INFERD_Error* InputGather::GatherStrings(const TensorSpec& spec, size_t index, Batch batch,
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
  for (const BatchedRequest& request : batch) {
    const std::vector<std::string_view>* elements = nullptr;
    if (auto* err = bytes_.Elements(spec, request.inputs[index], &elements)) return err;
    for (std::string_view element : *elements) {
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
