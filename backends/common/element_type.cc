// Lookups in a backend's element type table (see element_type.h).
#include "common/element_type.h"

namespace inferd::backend_common {

const ElementType* TypeTable::FromConfigName(std::string_view config_name) const {
  for (size_t i = 0; i < count_; ++i) {
    if (types_[i].config_name == config_name) return &types_[i];
  }
  return nullptr;
}

const ElementType* TypeTable::FromDataType(INFERD_DataType datatype) const {
  for (size_t i = 0; i < count_; ++i) {
    if (types_[i].datatype == datatype) return &types_[i];
  }
  return nullptr;
}

const ElementType* TypeTable::FromNative(int32_t native) const {
  if (native < 0) return nullptr;
  for (size_t i = 0; i < count_; ++i) {
    if (types_[i].native == native) return &types_[i];
  }
  return nullptr;
}

}  // namespace inferd::backend_common
