// Reading a session's inputs and outputs (see model_io.h).
#include "model_io.h"

namespace inferd::onnxruntime {
namespace {

using CountFn = OrtStatus*(ORT_API_CALL*)(const OrtSession*, size_t*);
using NameFn = OrtStatus*(ORT_API_CALL*)(const OrtSession*, size_t, OrtAllocator*, char**);
using TypeInfoFn = OrtStatus*(ORT_API_CALL*)(const OrtSession*, size_t, OrtTypeInfo**);

INFERD_Error* ReadTensors(const OrtSession& session, const char* kind, CountFn count_fn,
                          NameFn name_fn, TypeInfoFn type_fn, std::vector<OnnxTensor>* out) {
  const OrtApi& ort = Ort();
  OrtAllocator* allocator = nullptr;
  if (auto* err = OrtError(ort.GetAllocatorWithDefaultOptions(&allocator), "allocator")) {
    return err;
  }
  size_t count = 0;
  if (auto* err = OrtError(count_fn(&session, &count), std::string("reading the ") + kind + "s")) {
    return err;
  }
  for (size_t i = 0; i < count; ++i) {
    OnnxTensor tensor;
    char* name = nullptr;
    if (auto* err = OrtError(name_fn(&session, i, allocator, &name), "reading a name")) return err;
    tensor.name = name;
    ort.ReleaseStatus(ort.AllocatorFree(allocator, name));
    const std::string what = std::string(kind) + " '" + tensor.name + "'";
    OrtTypeInfo* raw_info = nullptr;
    if (auto* err = OrtError(type_fn(&session, i, &raw_info), what)) return err;
    OrtPtr<OrtTypeInfo> info(raw_info);
    ONNXType onnx_type = ONNX_TYPE_UNKNOWN;
    if (auto* err = OrtError(ort.GetOnnxTypeFromTypeInfo(info.get(), &onnx_type), what)) {
      return err;
    }
    if (onnx_type != ONNX_TYPE_TENSOR) {
      return MakeError(INFERD_ERROR_UNSUPPORTED,
                       "the model's " + what +
                           " is not a tensor (a sequence, map or optional); the onnxruntime "
                           "backend serves tensor inputs and outputs only");
    }
    const OrtTensorTypeAndShapeInfo* shape = nullptr;
    if (auto* err = OrtError(ort.CastTypeInfoToTensorInfo(info.get(), &shape), what)) return err;
    size_t rank = 0;
    if (auto* err = OrtError(ort.GetTensorElementType(shape, &tensor.type), what)) return err;
    if (auto* err = OrtError(ort.GetDimensionsCount(shape, &rank), what)) return err;
    tensor.dims.resize(rank);
    if (auto* err = OrtError(ort.GetDimensions(shape, tensor.dims.data(), rank), what)) return err;
    for (int64_t& dim : tensor.dims) {
      if (dim < 0) dim = -1;
    }
    out->push_back(std::move(tensor));
  }
  return nullptr;
}

}  // namespace

INFERD_Error* ReadModelIo(const OrtSession& session, ModelIo* io) {
  const OrtApi& ort = Ort();
  if (auto* err = ReadTensors(session, "input", ort.SessionGetInputCount, ort.SessionGetInputName,
                              ort.SessionGetInputTypeInfo, &io->inputs)) {
    return err;
  }
  return ReadTensors(session, "output", ort.SessionGetOutputCount, ort.SessionGetOutputName,
                     ort.SessionGetOutputTypeInfo, &io->outputs);
}

}  // namespace inferd::onnxruntime
