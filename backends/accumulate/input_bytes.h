// A request input's data gathered into one string (the server may hand an
// input over in several buffers). Inputs here are a few bytes each.
#ifndef INFERD_BACKENDS_ACCUMULATE_INPUT_BYTES_H_
#define INFERD_BACKENDS_ACCUMULATE_INPUT_BYTES_H_

#include <cstdint>
#include <string>

#include "inferd/backend.h"

namespace inferd::accumulate {

// The bytes of input `name` of `request` and its datatype. *found is false,
// and no error returned, when the request has no such input.
INFERD_Error* ReadInputBytes(INFERD_Request* request, const std::string& name, bool* found,
                             INFERD_DataType* datatype, std::string* bytes);

// The first INT32 value of input `name`; 0 when the request lacks the input
// (the server zero-fills inputs of the requests it makes up itself). An
// error when it is not INT32 or holds no value.
INFERD_Error* ReadInt32Input(INFERD_Request* request, const std::string& name, int32_t* value);

}  // namespace inferd::accumulate

#endif  // INFERD_BACKENDS_ACCUMULATE_INPUT_BYTES_H_
