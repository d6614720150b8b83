// The datatype table of the ONNX Runtime backend (see ort_types.h).
#include "ort_types.h"

#include <array>

namespace inferd::onnxruntime {
namespace {

// No native_name: OnnxTypeName names every ONNX type, served or not.
constexpr std::array<ElementType, 14> kTypes = {{
    {INFERD_TYPE_BOOL, ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL, "TYPE_BOOL", "", 1},
    {INFERD_TYPE_UINT8, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8, "TYPE_UINT8", "", 1},
    {INFERD_TYPE_UINT16, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16, "TYPE_UINT16", "", 2},
    {INFERD_TYPE_UINT32, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32, "TYPE_UINT32", "", 4},
    {INFERD_TYPE_UINT64, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64, "TYPE_UINT64", "", 8},
    {INFERD_TYPE_INT8, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8, "TYPE_INT8", "", 1},
    {INFERD_TYPE_INT16, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16, "TYPE_INT16", "", 2},
    {INFERD_TYPE_INT32, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, "TYPE_INT32", "", 4},
    {INFERD_TYPE_INT64, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, "TYPE_INT64", "", 8},
    {INFERD_TYPE_FP16, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16, "TYPE_FP16", "", 2},
    {INFERD_TYPE_FP32, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, "TYPE_FP32", "", 4},
    {INFERD_TYPE_FP64, ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE, "TYPE_FP64", "", 8},
    {INFERD_TYPE_BYTES, ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, "TYPE_STRING", "", 0},
    {INFERD_TYPE_BF16, ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16, "TYPE_BF16", "", 2},
}};

// ONNX's TensorProto.DataType names, indexed by the enum value.
constexpr std::array<std::string_view, 17> kOnnxNames = {
    "UNDEFINED", "FLOAT",  "UINT8",  "INT8",   "UINT16",    "INT16",      "INT32",
    "INT64",     "STRING", "BOOL",   "FLOAT16", "DOUBLE",   "UINT32",     "UINT64",
    "COMPLEX64", "COMPLEX128", "BFLOAT16"};

}  // namespace

const backend_common::TypeTable& OnnxTypes() {
  static constexpr backend_common::TypeTable kTable(kTypes);
  return kTable;
}

const ElementType* TypeFromOnnx(ONNXTensorElementDataType onnx) {
  return OnnxTypes().FromNative(onnx);
}

const ElementType* TypeFromConfigName(std::string_view config_name) {
  return OnnxTypes().FromConfigName(config_name);
}

const ElementType* TypeFromDataType(INFERD_DataType datatype) {
  return OnnxTypes().FromDataType(datatype);
}

std::string OnnxTypeName(int onnx) {
  if (onnx >= 0 && static_cast<size_t>(onnx) < kOnnxNames.size()) {
    return std::string(kOnnxNames[onnx]);
  }
  return "element type " + std::to_string(onnx);
}

}  // namespace inferd::onnxruntime
