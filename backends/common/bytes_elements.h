// inferd's BYTES tensor layout, shared with the HTTP binary extension: each
// element is a 4-byte little-endian length followed by that many bytes, the
// elements back to back in row-major order. ONNX string tensors and LibTorch's
// List[str] hold the same elements as separate strings. Pure; thread-safe.
#ifndef INFERD_BACKENDS_COMMON_BYTES_ELEMENTS_H_
#define INFERD_BACKENDS_COMMON_BYTES_ELEMENTS_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace inferd::backend_common {

// Appends the elements serialized in `data` to `out` (views into `data`).
// Returns "" or what is malformed (a length running past the end).
std::string SplitBytesElements(std::string_view data, std::vector<std::string_view>* out);

// Bytes that `element_count` elements of `payload_bytes` bytes in total take.
inline size_t SerializedBytesSize(size_t element_count, size_t payload_bytes) {
  return element_count * 4 + payload_bytes;
}

// Writes one element (length prefix and bytes) at `dst`; returns the end.
char* WriteBytesElement(char* dst, std::string_view element);

}  // namespace inferd::backend_common

#endif  // INFERD_BACKENDS_COMMON_BYTES_ELEMENTS_H_
