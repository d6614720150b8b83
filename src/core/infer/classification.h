// The classification extension (Triton's "classification" output parameter):
// instead of an output tensor, its `class_count` largest values in each batch
// row, largest first, as BYTES elements "<value>:<index>" or
// "<value>:<index>:<label>" (labels from the output's label_filename, line
// `index`). Pure functions; thread-safe.
#ifndef INFERD_CORE_INFER_CLASSIFICATION_H_
#define INFERD_CORE_INFER_CLASSIFICATION_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd {

struct Classification {
  std::string data;            // a BYTES tensor: 4-byte little-endian length, then bytes
  std::vector<int64_t> shape;  // [rows, k] for a batched output, [k] otherwise
};

// Whether outputs of `datatype` can be classified (numbers; not BYTES, BOOL).
bool IsClassifiable(INFERD_DataType datatype);

// Classifies the output tensor `data` (`byte_size` bytes of `datatype` in
// `shape`, whose first dimension is the batch when `batched`). `labels` may
// be empty. k is class_count, or fewer when a row has fewer values. INVALID_ARG
// naming `what` when the data does not fit the shape or the type cannot be
// classified.
StatusOr<Classification> Classify(const void* data, size_t byte_size, INFERD_DataType datatype,
                                  const std::vector<int64_t>& shape, bool batched,
                                  uint32_t class_count, const std::vector<std::string>& labels,
                                  std::string_view what);

}  // namespace inferd

#endif  // INFERD_CORE_INFER_CLASSIFICATION_H_
