// Shape helpers (see shapes.h).
#include "common/shapes.h"

namespace inferd::backend_common {

int64_t ElementCount(const int64_t* dims, size_t rank) {
  int64_t count = 1;
  for (size_t i = 0; i < rank; ++i) count *= dims[i];
  return count;
}

std::string ShapeString(const int64_t* dims, size_t rank) {
  std::string out = "[";
  for (size_t i = 0; i < rank; ++i) {
    if (i > 0) out += ",";
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

}  // namespace inferd::backend_common
