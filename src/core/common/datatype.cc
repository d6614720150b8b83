#include "core/common/datatype.h"

#include <array>

namespace inferd {
namespace {

struct TypeInfo {
  INFERD_DataType type;
  std::string_view name;
  uint32_t byte_size;
  inference::DataType config_type;
};

constexpr std::array<TypeInfo, 15> kTypes = {{
    {INFERD_TYPE_INVALID, "INVALID", 0, inference::TYPE_INVALID},
    {INFERD_TYPE_BOOL, "BOOL", 1, inference::TYPE_BOOL},
    {INFERD_TYPE_UINT8, "UINT8", 1, inference::TYPE_UINT8},
    {INFERD_TYPE_UINT16, "UINT16", 2, inference::TYPE_UINT16},
    {INFERD_TYPE_UINT32, "UINT32", 4, inference::TYPE_UINT32},
    {INFERD_TYPE_UINT64, "UINT64", 8, inference::TYPE_UINT64},
    {INFERD_TYPE_INT8, "INT8", 1, inference::TYPE_INT8},
    {INFERD_TYPE_INT16, "INT16", 2, inference::TYPE_INT16},
    {INFERD_TYPE_INT32, "INT32", 4, inference::TYPE_INT32},
    {INFERD_TYPE_INT64, "INT64", 8, inference::TYPE_INT64},
    {INFERD_TYPE_FP16, "FP16", 2, inference::TYPE_FP16},
    {INFERD_TYPE_FP32, "FP32", 4, inference::TYPE_FP32},
    {INFERD_TYPE_FP64, "FP64", 8, inference::TYPE_FP64},
    {INFERD_TYPE_BYTES, "BYTES", 0, inference::TYPE_STRING},
    {INFERD_TYPE_BF16, "BF16", 2, inference::TYPE_BF16},
}};

const TypeInfo& Info(INFERD_DataType type) {
  for (const TypeInfo& info : kTypes) {
    if (info.type == type) return info;
  }
  return kTypes[0];
}

}  // namespace

std::string_view DataTypeName(INFERD_DataType type) { return Info(type).name; }

INFERD_DataType DataTypeFromName(std::string_view name) {
  for (const TypeInfo& info : kTypes) {
    if (info.name == name && info.type != INFERD_TYPE_INVALID) return info.type;
  }
  return INFERD_TYPE_INVALID;
}

uint32_t DataTypeByteSize(INFERD_DataType type) { return Info(type).byte_size; }

INFERD_DataType FromConfigDataType(inference::DataType type) {
  for (const TypeInfo& info : kTypes) {
    if (info.config_type == type) return info.type;
  }
  return INFERD_TYPE_INVALID;
}

inference::DataType ToConfigDataType(INFERD_DataType type) { return Info(type).config_type; }

int64_t ElementCount(std::span<const int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0 || __builtin_mul_overflow(count, dim, &count)) return -1;
  }
  return count;
}

std::string ShapeToString(std::span<const int64_t> shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(shape[i]);
  }
  out += ']';
  return out;
}

}  // namespace inferd
