// Reading input 0 in place, value by value.
#include "input_values.h"

#include <algorithm>
#include <cstring>

namespace inferd::repeat {
namespace {

INFERD_Error* Invalid(const std::string& message) {
  return INFERD_ErrorNew(INFERD_ERROR_INVALID_ARG, message.c_str());
}

}  // namespace

INFERD_Error* InputValues::Locate(INFERD_Input* input, InputValues* values) {
  const char* name = nullptr;
  const int64_t* shape = nullptr;
  uint32_t dim_count = 0;
  uint64_t byte_size = 0;
  uint32_t buffer_count = 0;
  if (INFERD_Error* err = INFERD_InputProperties(input, &name, &values->datatype_, &shape,
                                                 &dim_count, &byte_size, &buffer_count)) {
    return err;
  }
  for (uint32_t b = 0; b < buffer_count; ++b) {
    const void* data = nullptr;
    uint64_t size = 0;
    INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
    int64_t memory_type_id = 0;
    if (INFERD_Error* err =
            INFERD_InputBuffer(input, b, &data, &size, &memory_type, &memory_type_id)) {
      return err;
    }
    if (memory_type == INFERD_MEMORY_GPU) {
      return Invalid("input '" + std::string(name) + "' is in GPU memory; the repeat backend "
                     "reads CPU memory only");
    }
    if (size > 0) values->buffers_.push_back({static_cast<const char*>(data), size});
  }
  uint64_t count = 1;
  for (uint32_t d = 0; d < dim_count; ++d) count *= static_cast<uint64_t>(shape[d]);
  values->count_ = count;
  if (values->datatype_ == INFERD_TYPE_BYTES) {
    if (INFERD_Error* err = values->IndexBytes(byte_size)) return err;
    if (values->bytes_.size() != count) {
      return Invalid("input '" + std::string(name) + "' holds " +
                     std::to_string(values->bytes_.size()) + " strings, its shape " +
                     std::to_string(count));
    }
    return nullptr;
  }
  values->element_size_ = INFERD_DataTypeByteSize(values->datatype_);
  // The server checked the size against the shape; a short buffer is read no further.
  if (values->element_size_ == 0 || byte_size / values->element_size_ < count) {
    return Invalid("input '" + std::string(name) + "' has " + std::to_string(byte_size) +
                   " bytes, too few for its shape");
  }
  return nullptr;
}

INFERD_Error* InputValues::IndexBytes(uint64_t total_size) {
  uint64_t offset = 0;
  while (offset < total_size) {
    if (total_size - offset < 4) return Invalid("BYTES input ends inside a length prefix");
    uint32_t length = 0;
    char prefix[4];
    Copy(offset, 4, prefix);
    std::memcpy(&length, prefix, 4);  // little-endian, as the host is
    offset += 4;
    if (total_size - offset < length) return Invalid("BYTES input ends inside a string");
    bytes_.push_back({offset, length});
    offset += length;
  }
  return nullptr;
}

void InputValues::Copy(uint64_t offset, uint64_t size, char* dst) const {
  for (const Buffer& buffer : buffers_) {
    if (size == 0) return;
    if (offset >= buffer.size) {
      offset -= buffer.size;
      continue;
    }
    const uint64_t take = std::min(size, buffer.size - offset);
    std::memcpy(dst, buffer.data + offset, take);
    dst += take;
    size -= take;
    offset = 0;
  }
}

std::string InputValues::Element(size_t k) const {
  if (datatype_ != INFERD_TYPE_BYTES) {
    std::string value(element_size_, '\0');
    Copy(static_cast<uint64_t>(k) * element_size_, element_size_, value.data());
    return value;
  }
  const Extent& extent = bytes_[k];
  const auto length = static_cast<uint32_t>(extent.size);
  std::string value(4 + extent.size, '\0');
  std::memcpy(value.data(), &length, 4);
  Copy(extent.offset, extent.size, value.data() + 4);
  return value;
}

}  // namespace inferd::repeat
