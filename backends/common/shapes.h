// Small helpers for tensor shapes: element counts and the "[2,-1,3]" form
// error messages use. Pure; thread-safe.
#ifndef INFERD_BACKENDS_COMMON_SHAPES_H_
#define INFERD_BACKENDS_COMMON_SHAPES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace inferd::backend_common {

// Elements in a shape (1 for a scalar; dimensions must not be negative).
int64_t ElementCount(const int64_t* dims, size_t rank);
inline int64_t ElementCount(const std::vector<int64_t>& dims) {
  return ElementCount(dims.data(), dims.size());
}

// "[2,-1,3]".
std::string ShapeString(const int64_t* dims, size_t rank);
inline std::string ShapeString(const std::vector<int64_t>& dims) {
  return ShapeString(dims.data(), dims.size());
}

}  // namespace inferd::backend_common

#endif  // INFERD_BACKENDS_COMMON_SHAPES_H_
