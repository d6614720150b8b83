// BYTES element encoding (see bytes_elements.h).
#include "common/bytes_elements.h"

#include <cstdint>
#include <cstring>

namespace inferd::backend_common {

std::string SplitBytesElements(std::string_view data, std::vector<std::string_view>* out) {
  size_t offset = 0;
  while (offset < data.size()) {
    if (data.size() - offset < 4) {
      return "element " + std::to_string(out->size()) + " has a truncated 4-byte length";
    }
    const auto* p = reinterpret_cast<const unsigned char*>(data.data() + offset);
    const uint32_t length = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
                            static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
    offset += 4;
    if (length > data.size() - offset) {
      return "element " + std::to_string(out->size()) + " claims " + std::to_string(length) +
             " bytes but only " + std::to_string(data.size() - offset) + " remain";
    }
    out->push_back(data.substr(offset, length));
    offset += length;
  }
  return "";
}

char* WriteBytesElement(char* dst, std::string_view element) {
  const auto length = static_cast<uint32_t>(element.size());
  const unsigned char prefix[4] = {
      static_cast<unsigned char>(length), static_cast<unsigned char>(length >> 8),
      static_cast<unsigned char>(length >> 16), static_cast<unsigned char>(length >> 24)};
  std::memcpy(dst, prefix, 4);
  if (!element.empty()) std::memcpy(dst + 4, element.data(), element.size());
  return dst + 4 + element.size();
}

}  // namespace inferd::backend_common
