// Collecting one input of the requests in a run for the framework, as
// Triton's input collector does: the requests' rows concatenated along the
// batch dimension into one contiguous buffer, or the one request's own buffer
// when it brings the input whole and suitably aligned; BYTES inputs split
// into their elements. The framework then wraps the memory in its own tensor
// type. Not thread-safe; one BytesInputReader per instance.
// C++17 (the PyTorch backend's LibTorch files include it).
#ifndef INFERD_BACKENDS_COMMON_INPUT_COLLECTOR_H_
#define INFERD_BACKENDS_COMMON_INPUT_COLLECTOR_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/request_batch.h"
#include "inferd/backend.h"

namespace inferd::backend_common {

// Numeric input `index` of `batch` without a copy: the request's own buffer
// when the batch is one request bringing it in one buffer aligned to
// `alignment` (frameworks' kernels read elements through typed pointers).
// *data stays null when it must be copied.
INFERD_Error* BorrowInput(Batch batch, size_t index, size_t alignment, void** data);

// Copies numeric input `index` of every request of `batch`, in order, to
// `dst` (which has room for all of it), through `instance`'s buffer copies
// (the server's buffer-manager threads when large). `copies` is scratch.
INFERD_Error* CopyInputRows(INFERD_ModelInstance* instance, Batch batch, size_t index, char* dst,
                            std::vector<INFERD_MemoryCopy>* copies);

// Reads BYTES inputs element by element.
class BytesInputReader {
 public:
  // The elements of one request's BYTES input `in` of `spec`, valid until the
  // next call. Error (INVALID_ARG, naming the input) when they are malformed
  // or do not fill the input's shape.
  INFERD_Error* Elements(const TensorSpec& spec, const RequestInput& in,
                         const std::vector<std::string_view>** elements);

 private:
  // The bytes of `in`, concatenated when it has several buffers.
  INFERD_Error* InputBytes(const RequestInput& in, std::string_view* bytes);

  std::string joined_;                      //!< a multi-buffer input, joined
  std::vector<std::string_view> elements_;  //!< the last request's elements
};

}  // namespace inferd::backend_common

#endif  // INFERD_BACKENDS_COMMON_INPUT_COLLECTOR_H_
