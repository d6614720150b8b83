// InferTensorContents -> raw tensor bytes, borrowed where the layouts agree.
#include "grpc/tensor_contents.h"

#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "inferd/base/half_float.h"

namespace inferd::grpc_frontend {
namespace {

static_assert(std::endian::native == std::endian::little,
              "typed contents are borrowed as little-endian tensor data");
static_assert(sizeof(bool) == 1, "bool_contents are borrowed as one byte per element");

using inference::InferTensorContents;

enum class Field { kBool, kInt, kInt64, kUint, kUint64, kFp32, kFp64, kBytes };
constexpr Field kAllFields[] = {Field::kBool,   Field::kInt,  Field::kInt64, Field::kUint,
                                Field::kUint64, Field::kFp32, Field::kFp64,  Field::kBytes};

Field FieldFor(INFERD_DataType datatype) {
  switch (datatype) {
    case INFERD_TYPE_BOOL:
      return Field::kBool;
    case INFERD_TYPE_INT8:
    case INFERD_TYPE_INT16:
    case INFERD_TYPE_INT32:
      return Field::kInt;
    case INFERD_TYPE_INT64:
      return Field::kInt64;
    case INFERD_TYPE_UINT8:
    case INFERD_TYPE_UINT16:
    case INFERD_TYPE_UINT32:
      return Field::kUint;
    case INFERD_TYPE_UINT64:
      return Field::kUint64;
    case INFERD_TYPE_FP16:
    case INFERD_TYPE_BF16:
    case INFERD_TYPE_FP32:
      return Field::kFp32;
    case INFERD_TYPE_FP64:
      return Field::kFp64;
    case INFERD_TYPE_BYTES:
    case INFERD_TYPE_INVALID:
      break;
  }
  return Field::kBytes;
}

const char* FieldName(Field field) {
  switch (field) {
    case Field::kBool:
      return "bool_contents";
    case Field::kInt:
      return "int_contents";
    case Field::kInt64:
      return "int64_contents";
    case Field::kUint:
      return "uint_contents";
    case Field::kUint64:
      return "uint64_contents";
    case Field::kFp32:
      return "fp32_contents";
    case Field::kFp64:
      return "fp64_contents";
    case Field::kBytes:
      return "bytes_contents";
  }
  return "";
}

int FieldSize(const InferTensorContents& contents, Field field) {
  switch (field) {
    case Field::kBool:
      return contents.bool_contents_size();
    case Field::kInt:
      return contents.int_contents_size();
    case Field::kInt64:
      return contents.int64_contents_size();
    case Field::kUint:
      return contents.uint_contents_size();
    case Field::kUint64:
      return contents.uint64_contents_size();
    case Field::kFp32:
      return contents.fp32_contents_size();
    case Field::kFp64:
      return contents.fp64_contents_size();
    case Field::kBytes:
      return contents.bytes_contents_size();
  }
  return 0;
}

std::string Where(std::string_view input_name) {
  return "input '" + std::string(input_name) + "': ";
}

template <typename T>
TensorData Borrow(const google::protobuf::RepeatedField<T>& values) {
  return TensorData{values.data(), values.size() * sizeof(T)};
}

// Narrows each value to To, refusing values outside its range.
template <typename To, typename From>
Status Narrow(const google::protobuf::RepeatedField<From>& values, INFERD_DataType datatype,
              std::string_view input_name, std::vector<std::unique_ptr<char[]>>* owned,
              TensorData* out) {
  auto buffer = std::make_unique<char[]>(values.size() * sizeof(To));
  for (int i = 0; i < values.size(); ++i) {
    const From value = values.Get(i);
    if (!std::in_range<To>(value)) {
      return Status::InvalidArg(Where(input_name) + "value " + std::to_string(value) +
                                " at index " + std::to_string(i) + " is out of range for " +
                                INFERD_DataTypeString(datatype));
    }
    const To narrowed = static_cast<To>(value);
    std::memcpy(buffer.get() + i * sizeof(To), &narrowed, sizeof(To));
  }
  *out = TensorData{buffer.get(), values.size() * sizeof(To)};
  owned->push_back(std::move(buffer));
  return Status::Ok();
}

// FP32 values -> FP16 or BF16 bits, rounding to nearest even.
TensorData ToHalfWidth(const google::protobuf::RepeatedField<float>& values, bool bfloat,
                       std::vector<std::unique_ptr<char[]>>* owned) {
  auto buffer = std::make_unique<char[]>(values.size() * sizeof(uint16_t));
  for (int i = 0; i < values.size(); ++i) {
    const uint16_t bits = bfloat ? FloatToBFloat16(values.Get(i)) : FloatToHalf(values.Get(i));
    std::memcpy(buffer.get() + i * sizeof bits, &bits, sizeof bits);
  }
  const TensorData data{buffer.get(), values.size() * sizeof(uint16_t)};
  owned->push_back(std::move(buffer));
  return data;
}

// Each element as a 4-byte little-endian length followed by its bytes.
Status SerializeBytes(const google::protobuf::RepeatedPtrField<std::string>& values,
                      std::string_view input_name,
                      std::vector<std::unique_ptr<char[]>>* owned, TensorData* out) {
  size_t total = 0;
  for (const std::string& value : values) {
    if (value.size() > std::numeric_limits<uint32_t>::max()) {
      return Status::InvalidArg(Where(input_name) + "a BYTES element is larger than 4 GiB");
    }
    total += sizeof(uint32_t) + value.size();
  }
  auto buffer = std::make_unique<char[]>(total);
  char* cursor = buffer.get();
  for (const std::string& value : values) {
    const uint32_t length = static_cast<uint32_t>(value.size());
    std::memcpy(cursor, &length, sizeof length);
    std::memcpy(cursor + sizeof length, value.data(), value.size());
    cursor += sizeof length + value.size();
  }
  *out = TensorData{buffer.get(), total};
  owned->push_back(std::move(buffer));
  return Status::Ok();
}

}  // namespace

Status ContentsToTensor(const InferTensorContents& contents, INFERD_DataType datatype,
                        uint64_t element_count, std::string_view input_name,
                        std::vector<std::unique_ptr<char[]>>* owned, TensorData* out) {
  const Field field = FieldFor(datatype);
  for (const Field other : kAllFields) {
    if (other != field && FieldSize(contents, other) > 0) {
      return Status::InvalidArg(Where(input_name) + INFERD_DataTypeString(datatype) +
                                " data goes in " + FieldName(field) + ", but " + FieldName(other) +
                                " is set");
    }
  }
  const uint64_t count = static_cast<uint64_t>(FieldSize(contents, field));
  if (count != element_count) {
    return Status::InvalidArg(Where(input_name) + FieldName(field) + " holds " +
                              std::to_string(count) + " elements but its shape needs " +
                              std::to_string(element_count));
  }
  switch (datatype) {
    case INFERD_TYPE_BOOL:
      *out = Borrow(contents.bool_contents());
      return Status::Ok();
    case INFERD_TYPE_INT8:
      return Narrow<int8_t>(contents.int_contents(), datatype, input_name, owned, out);
    case INFERD_TYPE_INT16:
      return Narrow<int16_t>(contents.int_contents(), datatype, input_name, owned, out);
    case INFERD_TYPE_INT32:
      *out = Borrow(contents.int_contents());
      return Status::Ok();
    case INFERD_TYPE_INT64:
      *out = Borrow(contents.int64_contents());
      return Status::Ok();
    case INFERD_TYPE_UINT8:
      return Narrow<uint8_t>(contents.uint_contents(), datatype, input_name, owned, out);
    case INFERD_TYPE_UINT16:
      return Narrow<uint16_t>(contents.uint_contents(), datatype, input_name, owned, out);
    case INFERD_TYPE_UINT32:
      *out = Borrow(contents.uint_contents());
      return Status::Ok();
    case INFERD_TYPE_UINT64:
      *out = Borrow(contents.uint64_contents());
      return Status::Ok();
    case INFERD_TYPE_FP16:
    case INFERD_TYPE_BF16:
      *out = ToHalfWidth(contents.fp32_contents(), datatype == INFERD_TYPE_BF16, owned);
      return Status::Ok();
    case INFERD_TYPE_FP32:
      *out = Borrow(contents.fp32_contents());
      return Status::Ok();
    case INFERD_TYPE_FP64:
      *out = Borrow(contents.fp64_contents());
      return Status::Ok();
    case INFERD_TYPE_BYTES:
      return SerializeBytes(contents.bytes_contents(), input_name, owned, out);
    case INFERD_TYPE_INVALID:
      break;
  }
  return Status::InvalidArg(Where(input_name) + "invalid datatype");
}

}  // namespace inferd::grpc_frontend
