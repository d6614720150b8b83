#include "core/infer/classification.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "inferd/base/half_float.h"

namespace inferd {
namespace {

// Element `i` as a double, for ordering.
double ValueAt(const char* data, INFERD_DataType datatype, size_t i) {
  const auto read = [&](auto zero) {
    decltype(zero) value;
    std::memcpy(&value, data + i * sizeof value, sizeof value);
    return value;
  };
  switch (datatype) {
    case INFERD_TYPE_UINT8: return read(uint8_t{});
    case INFERD_TYPE_UINT16: return read(uint16_t{});
    case INFERD_TYPE_UINT32: return read(uint32_t{});
    case INFERD_TYPE_UINT64: return static_cast<double>(read(uint64_t{}));
    case INFERD_TYPE_INT8: return read(int8_t{});
    case INFERD_TYPE_INT16: return read(int16_t{});
    case INFERD_TYPE_INT32: return read(int32_t{});
    case INFERD_TYPE_INT64: return static_cast<double>(read(int64_t{}));
    case INFERD_TYPE_FP16: return HalfToFloat(read(uint16_t{}));
    case INFERD_TYPE_BF16: return BFloat16ToFloat(read(uint16_t{}));
    case INFERD_TYPE_FP32: return read(float{});
    case INFERD_TYPE_FP64: return read(double{});
    default: return 0;
  }
}

// Element `i` as Triton prints it: integers exactly, floating point with
// std::to_string's six decimals.
std::string TextAt(const char* data, INFERD_DataType datatype, size_t i) {
  const auto read = [&](auto zero) {
    decltype(zero) value;
    std::memcpy(&value, data + i * sizeof value, sizeof value);
    return value;
  };
  switch (datatype) {
    case INFERD_TYPE_UINT8: return std::to_string(read(uint8_t{}));
    case INFERD_TYPE_UINT16: return std::to_string(read(uint16_t{}));
    case INFERD_TYPE_UINT32: return std::to_string(read(uint32_t{}));
    case INFERD_TYPE_UINT64: return std::to_string(read(uint64_t{}));
    case INFERD_TYPE_INT8: return std::to_string(read(int8_t{}));
    case INFERD_TYPE_INT16: return std::to_string(read(int16_t{}));
    case INFERD_TYPE_INT32: return std::to_string(read(int32_t{}));
    case INFERD_TYPE_INT64: return std::to_string(read(int64_t{}));
    case INFERD_TYPE_FP64: return std::to_string(read(double{}));
    default: return std::to_string(static_cast<float>(ValueAt(data, datatype, i)));
  }
}

void AppendElement(std::string_view text, std::string* out) {
  const uint32_t length = static_cast<uint32_t>(text.size());
  char prefix[sizeof length];
  std::memcpy(prefix, &length, sizeof length);  // little-endian hosts only, as the wire format
  out->append(prefix, sizeof prefix);
  out->append(text);
}

}  // namespace

bool IsClassifiable(INFERD_DataType datatype) {
  return datatype != INFERD_TYPE_BYTES && datatype != INFERD_TYPE_BOOL &&
         datatype != INFERD_TYPE_INVALID;
}

StatusOr<Classification> Classify(const void* data, size_t byte_size, INFERD_DataType datatype,
                                  const std::vector<int64_t>& shape, bool batched,
                                  uint32_t class_count, const std::vector<std::string>& labels,
                                  std::string_view what) {
  if (!IsClassifiable(datatype)) {
    return Status::InvalidArg(std::string(what) + ": outputs of type " +
                              INFERD_DataTypeString(datatype) + " cannot be classified");
  }
  uint64_t elements = 1;
  for (int64_t dim : shape) elements *= dim > 0 ? static_cast<uint64_t>(dim) : 0;
  if (elements * INFERD_DataTypeByteSize(datatype) != byte_size) {
    return Status::InvalidArg(std::string(what) + ": its " + std::to_string(byte_size) +
                              " bytes do not fit its shape");
  }
  const uint64_t rows = batched && !shape.empty() ? std::max<int64_t>(shape[0], 0) : 1;
  const uint64_t per_row = rows == 0 ? 0 : elements / rows;
  const uint64_t k = std::min<uint64_t>(class_count, per_row);
  const char* bytes = static_cast<const char*>(data);
  Classification result;
  result.shape = batched ? std::vector<int64_t>{static_cast<int64_t>(rows), static_cast<int64_t>(k)}
                         : std::vector<int64_t>{static_cast<int64_t>(k)};
  std::vector<uint64_t> order(per_row);
  for (uint64_t row = 0; row < rows; ++row) {
    const uint64_t base = row * per_row;
    std::iota(order.begin(), order.end(), 0);
    // Largest first; equal values keep index order.
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](uint64_t a, uint64_t b) {
      const double va = ValueAt(bytes, datatype, base + a);
      const double vb = ValueAt(bytes, datatype, base + b);
      return va > vb || (va == vb && a < b);
    });
    for (uint64_t j = 0; j < k; ++j) {
      const uint64_t index = order[j];
      std::string text = TextAt(bytes, datatype, base + index) + ":" + std::to_string(index);
      if (index < labels.size()) text += ":" + labels[index];
      AppendElement(text, &result.data);
    }
  }
  return result;
}

}  // namespace inferd
