// Business logic scripting: a request a Python model sends to another model
// the server serves (pb_utils.InferenceRequest(...).exec()), submitted through
// server.h like any client's, its responses handed to a sink as they come.
// Inputs are copied out of the stub's ring once (the ring moves on); outputs
// land in heap buffers the sink copies into shared memory for the stub.
// Thread-safe: responses arrive on whatever thread the target model sends from.
#ifndef INFERD_BACKENDS_PYTHON_BLS_CALL_H_
#define INFERD_BACKENDS_PYTHON_BLS_CALL_H_

#include <cstdint>

#include "inferd/backend_bls.h"  // the inference API BLS submits through
#include "inferd/base/status.h"
#include "wire_format.h"

namespace inferd::python {

// Where a call's responses go (the StubInstance that asked).
class BlsSink {
 public:
  virtual ~BlsSink() = default;
  // One response of call `id` (`response` null when only FINAL comes), from
  // any thread; after the final one no other call for `id` follows.
  virtual void OnBlsResponse(uint64_t id, uint64_t generation, const ResponseView* response,
                             bool final) = 0;
  // The server released the call's request: the sink may go once every call ended.
  virtual void OnBlsReleased() = 0;
};

// Submits `request` to `server`; its responses reach `sink` tagged with `id`
// and `generation`. An error means nothing was submitted and no callback runs.
Status SubmitBls(INFERD_Server* server, const BlsRequestView& request, uint64_t id,
                 uint64_t generation, BlsSink* sink);

}  // namespace inferd::python

#endif  // INFERD_BACKENDS_PYTHON_BLS_CALL_H_
