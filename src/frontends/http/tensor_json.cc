// JSON <-> binary tensor conversion for every KServe v2 datatype.
#include "http/tensor_json.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "inferd/base/half_float.h"

namespace inferd::http {
namespace {

constexpr int kMaxNesting = 64;
constexpr size_t kBytesLengthPrefix = 4;

using rapidjson::Value;

// Counts the leaves (non-array values) of `value`; BYTES callers also get the
// sum of their string lengths. Returns false when nesting is too deep.
bool CountElements(const Value& value, int depth, uint64_t* count, uint64_t* string_bytes) {
  if (!value.IsArray()) {
    ++*count;
    if (value.IsString()) *string_bytes += value.GetStringLength();
    return true;
  }
  if (depth == kMaxNesting) return false;
  for (const Value& item : value.GetArray()) {
    if (!CountElements(item, depth + 1, count, string_bytes)) return false;
  }
  return true;
}

// Calls convert(leaf, index) for each leaf in row-major order; stops at the
// first leaf it rejects and reports that leaf's flat index.
template <typename Convert>
bool ForEachLeaf(const Value& value, uint64_t* index, Convert& convert) {
  if (!value.IsArray()) {
    if (!convert(value)) return false;
    ++*index;
    return true;
  }
  for (const Value& item : value.GetArray()) {
    if (!ForEachLeaf(item, index, convert)) return false;
  }
  return true;
}

// Reads one JSON value as T; false when its JSON type or range does not fit.
template <typename T>
bool ReadNumber(const Value& value, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!value.IsBool()) return false;
    *out = value.GetBool();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!value.IsNumber()) return false;
    *out = static_cast<T>(value.GetDouble());
  } else if constexpr (std::is_signed_v<T>) {
    if (!value.IsInt64()) return false;
    const int64_t v = value.GetInt64();
    if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) return false;
    *out = static_cast<T>(v);
  } else {
    if (!value.IsUint64()) return false;
    const uint64_t v = value.GetUint64();
    if (v > std::numeric_limits<T>::max()) return false;
    *out = static_cast<T>(v);
  }
  return true;
}

// Decodes leaves read as Json (bool, an integer type, float or double) and
// stored as Stored (the same, or uint16_t for FP16/BF16 via `narrow`).
template <typename Json, typename Stored, typename Narrow>
bool DecodeFixed(const Value& data, uint64_t count, Narrow narrow, TensorBytes* out,
                 uint64_t* bad_index) {
  out->byte_size = count * sizeof(Stored);
  out->data = std::make_unique_for_overwrite<char[]>(out->byte_size);
  char* dst = out->data.get();
  uint64_t index = 0;
  auto convert = [&](const Value& leaf) {
    Json value;
    if (!ReadNumber(leaf, &value)) return false;
    const Stored stored = narrow(value);
    std::memcpy(dst + index * sizeof(Stored), &stored, sizeof(Stored));
    return true;
  };
  const bool ok = ForEachLeaf(data, &index, convert);
  *bad_index = index;
  return ok;
}

template <typename T>
bool DecodeSame(const Value& data, uint64_t count, TensorBytes* out, uint64_t* bad_index) {
  return DecodeFixed<T, T>(data, count, [](T v) { return v; }, out, bad_index);
}

bool DecodeBytes(const Value& data, uint64_t count, uint64_t string_bytes, TensorBytes* out,
                 uint64_t* bad_index) {
  out->byte_size = count * kBytesLengthPrefix + string_bytes;
  out->data = std::make_unique_for_overwrite<char[]>(out->byte_size);
  char* dst = out->data.get();
  uint64_t index = 0;
  auto convert = [&](const Value& leaf) {
    if (!leaf.IsString()) return false;
    const uint32_t length = leaf.GetStringLength();
    std::memcpy(dst, &length, kBytesLengthPrefix);  // little-endian host
    std::memcpy(dst + kBytesLengthPrefix, leaf.GetString(), length);
    dst += kBytesLengthPrefix + length;
    return true;
  };
  const bool ok = ForEachLeaf(data, &index, convert);
  *bad_index = index;
  return ok;
}

bool Decode(const Value& data, INFERD_DataType datatype, uint64_t count, uint64_t string_bytes,
            TensorBytes* out, uint64_t* bad_index) {
  switch (datatype) {
    case INFERD_TYPE_BOOL:
      return DecodeFixed<bool, uint8_t>(data, count, [](bool v) { return uint8_t{v}; }, out,
                                        bad_index);
    case INFERD_TYPE_UINT8: return DecodeSame<uint8_t>(data, count, out, bad_index);
    case INFERD_TYPE_UINT16: return DecodeSame<uint16_t>(data, count, out, bad_index);
    case INFERD_TYPE_UINT32: return DecodeSame<uint32_t>(data, count, out, bad_index);
    case INFERD_TYPE_UINT64: return DecodeSame<uint64_t>(data, count, out, bad_index);
    case INFERD_TYPE_INT8: return DecodeSame<int8_t>(data, count, out, bad_index);
    case INFERD_TYPE_INT16: return DecodeSame<int16_t>(data, count, out, bad_index);
    case INFERD_TYPE_INT32: return DecodeSame<int32_t>(data, count, out, bad_index);
    case INFERD_TYPE_INT64: return DecodeSame<int64_t>(data, count, out, bad_index);
    case INFERD_TYPE_FP32: return DecodeSame<float>(data, count, out, bad_index);
    case INFERD_TYPE_FP64: return DecodeSame<double>(data, count, out, bad_index);
    case INFERD_TYPE_FP16:
      return DecodeFixed<float, uint16_t>(data, count, FloatToHalf, out, bad_index);
    case INFERD_TYPE_BF16:
      return DecodeFixed<float, uint16_t>(data, count, FloatToBFloat16, out, bad_index);
    case INFERD_TYPE_BYTES: return DecodeBytes(data, count, string_bytes, out, bad_index);
    case INFERD_TYPE_INVALID: break;
  }
  *bad_index = 0;
  return false;
}

const char* ExpectedJson(INFERD_DataType datatype) {
  switch (datatype) {
    case INFERD_TYPE_BOOL: return "a JSON boolean";
    case INFERD_TYPE_BYTES: return "a JSON string";
    case INFERD_TYPE_FP16:
    case INFERD_TYPE_BF16:
    case INFERD_TYPE_FP32:
    case INFERD_TYPE_FP64: return "a JSON number";
    default: return "a JSON integer in the datatype's range";
  }
}

void WriteReal(double value, bool single, JsonWriter* writer) {
  if (!std::isfinite(value)) {
    writer->Double(value);  // NaN, Infinity, -Infinity
    return;
  }
  if (value == 0 && std::signbit(value)) {
    // "-0" would read back as the integer 0: keep the sign.
    writer->RawValue("-0.0", 4, rapidjson::kNumberType);
    return;
  }
  char text[32];
  const std::to_chars_result r = single ? std::to_chars(text, text + sizeof text, float(value))
                                        : std::to_chars(text, text + sizeof text, value);
  writer->RawValue(text, static_cast<size_t>(r.ptr - text), rapidjson::kNumberType);
}

template <typename T>
void WriteElements(const char* base, uint64_t count, JsonWriter* writer) {
  for (uint64_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, base + i * sizeof(T), sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      writer->Bool(v);
    } else if constexpr (std::is_same_v<T, float>) {
      WriteReal(v, true, writer);
    } else if constexpr (std::is_same_v<T, double>) {
      WriteReal(v, false, writer);
    } else if constexpr (std::is_signed_v<T>) {
      writer->Int64(v);
    } else {
      writer->Uint64(v);
    }
  }
}

void WriteHalfs(const char* base, uint64_t count, float (*widen)(uint16_t), JsonWriter* writer) {
  for (uint64_t i = 0; i < count; ++i) {
    uint16_t v;
    std::memcpy(&v, base + i * sizeof v, sizeof v);
    WriteReal(widen(v), true, writer);
  }
}

// BYTES: walks the length-prefixed elements; false when they do not add up.
bool WriteBytes(const char* base, size_t byte_size, uint64_t count, JsonWriter* writer) {
  size_t offset = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (byte_size - offset < kBytesLengthPrefix) return false;
    uint32_t length;
    std::memcpy(&length, base + offset, kBytesLengthPrefix);
    offset += kBytesLengthPrefix;
    if (byte_size - offset < length) return false;
    writer->String(base + offset, length);
    offset += length;
  }
  return offset == byte_size;
}

size_t FixedByteSize(INFERD_DataType datatype) {
  switch (datatype) {
    case INFERD_TYPE_BOOL: case INFERD_TYPE_UINT8: case INFERD_TYPE_INT8: return 1;
    case INFERD_TYPE_UINT16: case INFERD_TYPE_INT16: case INFERD_TYPE_FP16:
    case INFERD_TYPE_BF16: return 2;
    case INFERD_TYPE_UINT32: case INFERD_TYPE_INT32: case INFERD_TYPE_FP32: return 4;
    case INFERD_TYPE_UINT64: case INFERD_TYPE_INT64: case INFERD_TYPE_FP64: return 8;
    default: return 0;
  }
}

}  // namespace

Status CountJsonElements(const Value& data, std::string_view input_name, uint64_t* count) {
  *count = 0;
  uint64_t string_bytes = 0;
  if (CountElements(data, 0, count, &string_bytes)) return Status::Ok();
  return Status::InvalidArg("input '" + std::string(input_name) +
                            "': its value is nested deeper than " + std::to_string(kMaxNesting) +
                            " levels");
}

Status JsonToTensor(const Value& data, INFERD_DataType datatype, uint64_t element_count,
                    std::string_view input_name, TensorBytes* out, std::string_view field) {
  const auto name = [input_name] { return std::string(input_name); };
  uint64_t count = 0;
  uint64_t string_bytes = 0;
  if (!CountElements(data, 0, &count, &string_bytes)) {
    return Status::InvalidArg("input '" + name() + "': " + std::string(field) +
                              " is nested deeper than " + std::to_string(kMaxNesting) +
                              " levels");
  }
  if (count != element_count) {
    return Status::InvalidArg("input '" + name() + "': " + std::string(field) + " holds " +
                              std::to_string(count) + " elements but its shape needs " +
                              std::to_string(element_count));
  }
  uint64_t bad_index = 0;
  if (!Decode(data, datatype, count, string_bytes, out, &bad_index)) {
    out->data.reset();
    out->byte_size = 0;
    if (datatype == INFERD_TYPE_INVALID) {
      return Status::InvalidArg("input '" + name() + "': invalid datatype");
    }
    return Status::InvalidArg("input '" + name() + "': element " + std::to_string(bad_index) +
                              " of " + std::string(field) + " is not valid for datatype " +
                              INFERD_DataTypeString(datatype) + " (expected " +
                              ExpectedJson(datatype) + ")");
  }
  return Status::Ok();
}

Status TensorToJson(const void* base, size_t byte_size, INFERD_DataType datatype,
                    uint64_t element_count, std::string_view output_name, JsonWriter* writer,
                    bool unwrap_single) {
  const char* bytes = static_cast<const char*>(base);
  const bool array = !unwrap_single || element_count != 1;
  if (datatype == INFERD_TYPE_BYTES) {
    if (array) writer->StartArray();
    const bool ok = WriteBytes(bytes, byte_size, element_count, writer);
    if (array) writer->EndArray();
    if (ok) return Status::Ok();
    return Status::Internal("output '" + std::string(output_name) + "': its " +
                            std::to_string(byte_size) + " bytes do not hold " +
                            std::to_string(element_count) + " length-prefixed BYTES elements");
  }
  const size_t element_size = FixedByteSize(datatype);
  if (element_size == 0 || byte_size != element_count * element_size) {
    return Status::Internal("output '" + std::string(output_name) + "': " +
                            std::to_string(byte_size) + " bytes do not match " +
                            std::to_string(element_count) + " elements of " +
                            INFERD_DataTypeString(datatype));
  }
  if (array) writer->StartArray();
  switch (datatype) {
    case INFERD_TYPE_BOOL: WriteElements<bool>(bytes, element_count, writer); break;
    case INFERD_TYPE_UINT8: WriteElements<uint8_t>(bytes, element_count, writer); break;
    case INFERD_TYPE_UINT16: WriteElements<uint16_t>(bytes, element_count, writer); break;
    case INFERD_TYPE_UINT32: WriteElements<uint32_t>(bytes, element_count, writer); break;
    case INFERD_TYPE_UINT64: WriteElements<uint64_t>(bytes, element_count, writer); break;
    case INFERD_TYPE_INT8: WriteElements<int8_t>(bytes, element_count, writer); break;
    case INFERD_TYPE_INT16: WriteElements<int16_t>(bytes, element_count, writer); break;
    case INFERD_TYPE_INT32: WriteElements<int32_t>(bytes, element_count, writer); break;
    case INFERD_TYPE_INT64: WriteElements<int64_t>(bytes, element_count, writer); break;
    case INFERD_TYPE_FP32: WriteElements<float>(bytes, element_count, writer); break;
    case INFERD_TYPE_FP64: WriteElements<double>(bytes, element_count, writer); break;
    case INFERD_TYPE_FP16: WriteHalfs(bytes, element_count, HalfToFloat, writer); break;
    case INFERD_TYPE_BF16: WriteHalfs(bytes, element_count, BFloat16ToFloat, writer); break;
    default: break;
  }
  if (array) writer->EndArray();
  return Status::Ok();
}

}  // namespace inferd::http
