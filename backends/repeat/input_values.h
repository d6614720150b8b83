// The values of a request's input 0, read where the server keeps them. A
// decoupled model's request keeps its inputs alive until FINAL even after the
// backend released it, so a stream reads value k when it sends response k
// rather than copying the whole input up front.
#ifndef INFERD_BACKENDS_REPEAT_INPUT_VALUES_H_
#define INFERD_BACKENDS_REPEAT_INPUT_VALUES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "inferd/backend.h"

namespace inferd::repeat {

class InputValues {
 public:
  // Locates the values of `input` (before its request is released).
  // INVALID_ARG when its BYTES data is malformed or not in CPU memory.
  static INFERD_Error* Locate(INFERD_Input* input, InputValues* values);

  size_t count() const { return count_; }
  INFERD_DataType datatype() const { return datatype_; }

  // Value k as an output tensor of one element holds it: its bytes, after a
  // 4-byte little-endian length for BYTES. Valid only until FINAL.
  std::string Element(size_t k) const;

 private:
  struct Buffer {
    const char* data;
    uint64_t size;
  };
  // Where one value lies in the concatenated buffers.
  struct Extent {
    uint64_t offset;
    uint64_t size;
  };

  // Copies `size` bytes from `offset` of the concatenated buffers, which a
  // value may straddle.
  void Copy(uint64_t offset, uint64_t size, char* dst) const;
  // The values of BYTES data: each is a 4-byte length and that many bytes.
  INFERD_Error* IndexBytes(uint64_t total_size);

  INFERD_DataType datatype_ = INFERD_TYPE_INVALID;
  std::vector<Buffer> buffers_;
  size_t count_ = 0;
  uint32_t element_size_ = 0;   // fixed-size datatypes
  std::vector<Extent> bytes_;   // BYTES: each value's bytes, after its length
};

}  // namespace inferd::repeat

#endif  // INFERD_BACKENDS_REPEAT_INPUT_VALUES_H_
