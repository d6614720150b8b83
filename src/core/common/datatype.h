// Tensor datatypes: the protocol names ("FP32"), the configuration enum
// (TYPE_FP32) and element sizes. The core uses the ABI's INFERD_DataType itself.
#ifndef INFERD_CORE_COMMON_DATATYPE_H_
#define INFERD_CORE_COMMON_DATATYPE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "inferd/server.h"
#include "model_config.pb.h"

namespace inferd {

// "FP32", "BYTES", ...; "INVALID" for INFERD_TYPE_INVALID.
std::string_view DataTypeName(INFERD_DataType type);
// The datatype a protocol name stands for, or INFERD_TYPE_INVALID.
INFERD_DataType DataTypeFromName(std::string_view name);
// Bytes per element; 0 for BYTES and INVALID.
uint32_t DataTypeByteSize(INFERD_DataType type);

// TYPE_STRING <-> BYTES, TYPE_FP32 <-> FP32, ...; TYPE_INVALID <-> INVALID.
INFERD_DataType FromConfigDataType(inference::DataType type);
inference::DataType ToConfigDataType(INFERD_DataType type);

// Number of elements of a fully known shape; -1 when a dimension is negative
// or the count does not fit in 64 bits (a shape no request can carry data for).
int64_t ElementCount(std::span<const int64_t> shape);
// "[2,16]".
std::string ShapeToString(std::span<const int64_t> shape);

}  // namespace inferd

#endif  // INFERD_CORE_COMMON_DATATYPE_H_
