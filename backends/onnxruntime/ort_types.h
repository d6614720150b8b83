// The element types the backend serves: each inferd datatype, its
// config.pbtxt name and its ONNX tensor element type, as in Triton's datatype
// table (plus BF16, which Triton's table leaves out but ONNX has). Pure
// lookups; thread-safe.
#ifndef INFERD_BACKENDS_ONNXRUNTIME_ORT_TYPES_H_
#define INFERD_BACKENDS_ONNXRUNTIME_ORT_TYPES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/element_type.h"
#include "inferd/backend.h"
#include "onnxruntime_c_api.h"

namespace inferd::onnxruntime {

// One served element type; `native` is its ONNXTensorElementDataType.
using backend_common::ElementType;

// The backend's table (backend_common::TensorRules reads tensors with it).
const backend_common::TypeTable& OnnxTypes();

// The ONNX element type of a served type.
inline ONNXTensorElementDataType OnnxType(const ElementType& type) {
  return static_cast<ONNXTensorElementDataType>(type.native);
}

// The entry for an ONNX element type, a config name or a datatype; nullptr
// when the backend does not serve it (e.g. COMPLEX64, FLOAT8*, TYPE_INVALID).
const ElementType* TypeFromOnnx(ONNXTensorElementDataType onnx);
const ElementType* TypeFromConfigName(std::string_view config_name);
const ElementType* TypeFromDataType(INFERD_DataType datatype);

// ONNX's name of an element type ("FLOAT", "STRING", "COMPLEX64", ...), for
// error messages; "element type <n>" for one it does not know. Takes the
// number, not the enum: an onnxruntime newer than its header here may report
// a type the enum does not name, and such a value held in the enum is
// undefined behaviour (UBSan's enum check, make clang-check).
std::string OnnxTypeName(int onnx);

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_ORT_TYPES_H_
