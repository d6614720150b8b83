// The PyTorch backend's datatype table (see torch_types.h).
#include "torch_types.h"

#include <array>

namespace inferd::pytorch {
namespace {

constexpr int32_t Native(TorchScalar scalar) { return static_cast<int32_t>(scalar); }

constexpr std::array<ElementType, 11> kTypes = {{
    {INFERD_TYPE_BOOL, Native(TorchScalar::kBool), "TYPE_BOOL", "torch.bool", 1},
    {INFERD_TYPE_UINT8, Native(TorchScalar::kByte), "TYPE_UINT8", "torch.uint8", 1},
    {INFERD_TYPE_INT8, Native(TorchScalar::kChar), "TYPE_INT8", "torch.int8", 1},
    {INFERD_TYPE_INT16, Native(TorchScalar::kShort), "TYPE_INT16", "torch.int16", 2},
    {INFERD_TYPE_INT32, Native(TorchScalar::kInt), "TYPE_INT32", "torch.int32", 4},
    {INFERD_TYPE_INT64, Native(TorchScalar::kLong), "TYPE_INT64", "torch.int64", 8},
    {INFERD_TYPE_FP16, Native(TorchScalar::kHalf), "TYPE_FP16", "torch.float16", 2},
    {INFERD_TYPE_BF16, Native(TorchScalar::kBFloat16), "TYPE_BF16", "torch.bfloat16", 2},
    {INFERD_TYPE_FP32, Native(TorchScalar::kFloat), "TYPE_FP32", "torch.float32", 4},
    {INFERD_TYPE_FP64, Native(TorchScalar::kDouble), "TYPE_FP64", "torch.float64", 8},
    {INFERD_TYPE_BYTES, Native(TorchScalar::kNone), "TYPE_STRING", "List[str]", 0},
}};

}  // namespace

const backend_common::TypeTable& TorchTypes() {
  static constexpr backend_common::TypeTable kTable(kTypes);
  return kTable;
}

const ElementType* TypeFromConfigName(std::string_view config_name) {
  return TorchTypes().FromConfigName(config_name);
}

const ElementType* TypeFromDataType(INFERD_DataType datatype) {
  return TorchTypes().FromDataType(datatype);
}

const ElementType* TypeFromScalar(int scalar) { return TorchTypes().FromNative(scalar); }

bool IsUnsignedWithoutTorchType(std::string_view config_name) {
  return config_name == "TYPE_UINT16" || config_name == "TYPE_UINT32" ||
         config_name == "TYPE_UINT64";
}

}  // namespace inferd::pytorch
