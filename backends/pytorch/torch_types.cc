// The PyTorch backend's datatype table (see torch_types.h).
#include "torch_types.h"

#include <array>

namespace inferd::pytorch {
namespace {

constexpr std::array<ElementType, 11> kTypes = {{
    {INFERD_TYPE_BOOL, TorchScalar::kBool, "TYPE_BOOL", "torch.bool", 1},
    {INFERD_TYPE_UINT8, TorchScalar::kByte, "TYPE_UINT8", "torch.uint8", 1},
    {INFERD_TYPE_INT8, TorchScalar::kChar, "TYPE_INT8", "torch.int8", 1},
    {INFERD_TYPE_INT16, TorchScalar::kShort, "TYPE_INT16", "torch.int16", 2},
    {INFERD_TYPE_INT32, TorchScalar::kInt, "TYPE_INT32", "torch.int32", 4},
    {INFERD_TYPE_INT64, TorchScalar::kLong, "TYPE_INT64", "torch.int64", 8},
    {INFERD_TYPE_FP16, TorchScalar::kHalf, "TYPE_FP16", "torch.float16", 2},
    {INFERD_TYPE_BF16, TorchScalar::kBFloat16, "TYPE_BF16", "torch.bfloat16", 2},
    {INFERD_TYPE_FP32, TorchScalar::kFloat, "TYPE_FP32", "torch.float32", 4},
    {INFERD_TYPE_FP64, TorchScalar::kDouble, "TYPE_FP64", "torch.float64", 8},
    {INFERD_TYPE_BYTES, TorchScalar::kNone, "TYPE_STRING", "List[str]", 0},
}};

}  // namespace

const ElementType* TypeFromConfigName(std::string_view config_name) {
  for (const ElementType& type : kTypes) {
    if (type.config_name == config_name) return &type;
  }
  return nullptr;
}

const ElementType* TypeFromDataType(INFERD_DataType datatype) {
  for (const ElementType& type : kTypes) {
    if (type.datatype == datatype) return &type;
  }
  return nullptr;
}

const ElementType* TypeFromScalar(int scalar) {
  if (scalar < 0) return nullptr;
  for (const ElementType& type : kTypes) {
    if (static_cast<int>(type.scalar) == scalar) return &type;
  }
  return nullptr;
}

bool IsUnsignedWithoutTorchType(std::string_view config_name) {
  return config_name == "TYPE_UINT16" || config_name == "TYPE_UINT32" ||
         config_name == "TYPE_UINT64";
}

}  // namespace inferd::pytorch
