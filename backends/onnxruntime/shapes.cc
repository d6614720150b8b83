// Shape helpers (see shapes.h).
#include "shapes.h"

namespace inferd::onnxruntime {

int64_t ElementCount(const int64_t* dims, size_t rank) {
  int64_t count = 1;
  for (size_t i = 0; i < rank; ++i) count *= dims[i];
  return count;
}

std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ",";
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

}  // namespace inferd::onnxruntime
