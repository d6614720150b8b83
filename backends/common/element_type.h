// The element types a compiled backend serves, as one table per backend: each
// inferd datatype, its config.pbtxt name and the framework's own type number
// (ONNX's tensor element type, LibTorch's scalar type), so the configuration
// parser, the request reader and the responder share one lookup. Pure;
// thread-safe. C++17 (the PyTorch backend's LibTorch files include it).
#ifndef INFERD_BACKENDS_COMMON_ELEMENT_TYPE_H_
#define INFERD_BACKENDS_COMMON_ELEMENT_TYPE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "inferd/backend.h"

namespace inferd::backend_common {

// One served element type.
struct ElementType {
  INFERD_DataType datatype;      //!< the protocol datatype (INFERD_TYPE_FP32, ...)
  int32_t native;                //!< the framework's number for it; -1 where it has none
  std::string_view config_name;  //!< "TYPE_FP32", ... as config.pbtxt spells it
  std::string_view native_name;  //!< the framework's name, for error messages ("" if unused)
  uint32_t byte_size;            //!< bytes per element; 0 for BYTES (strings)
};

// A backend's table of served types. Lookups return nullptr for a type the
// backend does not serve.
class TypeTable {
 public:
  template <size_t N>
  constexpr explicit TypeTable(const std::array<ElementType, N>& types)
      : types_(types.data()), count_(N) {}

  const ElementType* FromConfigName(std::string_view config_name) const;
  const ElementType* FromDataType(INFERD_DataType datatype) const;
  // Negative numbers never match (they mark types the framework lacks).
  const ElementType* FromNative(int32_t native) const;

 private:
  const ElementType* types_;
  size_t count_;
};

}  // namespace inferd::backend_common

#endif  // INFERD_BACKENDS_COMMON_ELEMENT_TYPE_H_
