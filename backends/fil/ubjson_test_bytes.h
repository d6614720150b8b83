// Builders of UBJSON bytes for the fil backend's unit tests.
#ifndef INFERD_BACKENDS_FIL_UBJSON_TEST_BYTES_H_
#define INFERD_BACKENDS_FIL_UBJSON_TEST_BYTES_H_

#include <cstdint>
#include <string>

namespace inferd::fil::ubj {

// A big-endian integer of `size` bytes after `marker`.
inline std::string Int(char marker, int64_t value, int size) {
  std::string out(1, marker);
  for (int i = size - 1; i >= 0; --i) out += static_cast<char>((value >> (8 * i)) & 0xff);
  return out;
}
inline std::string I64(int64_t value) { return Int('L', value, 8); }
// An object key as XGBoost writes it: an int64 length, then the bytes.
inline std::string Key(const std::string& key) { return I64(static_cast<int64_t>(key.size())) + key; }
inline std::string Str(const std::string& text) { return "S" + Key(text); }

}  // namespace inferd::fil::ubj

#endif  // INFERD_BACKENDS_FIL_UBJSON_TEST_BYTES_H_
