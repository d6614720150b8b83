// The element types the PyTorch backend serves: each inferd datatype, its
// config.pbtxt name and LibTorch's scalar type, as in Triton's datatype table
// (plus BF16, which LibTorch 1.13 has). BYTES is no tensor type in LibTorch:
// it travels as List[str]. UINT16/32/64 have no LibTorch type and are refused.
// Pure lookups (the scalar type is held as its number, so this header needs no
// LibTorch; torch_types_check.cc holds the numbers against c10::ScalarType);
// thread-safe.
#ifndef INFERD_BACKENDS_PYTORCH_TORCH_TYPES_H_
#define INFERD_BACKENDS_PYTORCH_TORCH_TYPES_H_

#include <cstdint>
#include <string_view>

#include "common/element_type.h"
#include "inferd/backend.h"

namespace inferd::pytorch {

// c10::ScalarType's values for the types served (stable across LibTorch releases).
enum class TorchScalar : int8_t {
  kByte = 0,
  kChar = 1,
  kShort = 2,
  kInt = 3,
  kLong = 4,
  kHalf = 5,
  kFloat = 6,
  kDouble = 7,
  kBool = 11,
  kBFloat16 = 15,
  kNone = -1,  //!< BYTES: a List[str], not a tensor
};

// One served element type: `native` is its TorchScalar (kNone for BYTES),
// `native_name` LibTorch's name ("torch.float32", ...) for error messages.
using backend_common::ElementType;

// The backend's table (backend_common::TensorRules reads tensors with it).
const backend_common::TypeTable& TorchTypes();

// LibTorch's type of a served type.
inline TorchScalar ScalarOf(const ElementType& type) {
  return static_cast<TorchScalar>(type.native);
}

// The entry for a config name, a datatype or a LibTorch scalar type; nullptr
// when the backend does not serve it (TYPE_UINT32, TYPE_INVALID, complex, ...).
const ElementType* TypeFromConfigName(std::string_view config_name);
const ElementType* TypeFromDataType(INFERD_DataType datatype);
const ElementType* TypeFromScalar(int scalar);

// Whether `config_name` is a datatype Triton knows but LibTorch cannot hold
// (the unsigned types wider than 8 bits), for a clearer refusal.
bool IsUnsignedWithoutTorchType(std::string_view config_name);

}  // namespace inferd::pytorch

#endif  // INFERD_BACKENDS_PYTORCH_TORCH_TYPES_H_
