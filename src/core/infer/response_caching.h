// Between requests and the response cache (cache/): the key a request is
// cached under, a stored response made from a sent one, and a response
// answered from a stored one through the normal response path.
#ifndef INFERD_CORE_INFER_RESPONSE_CACHING_H_
#define INFERD_CORE_INFER_RESPONSE_CACHING_H_

#include <memory>
#include <optional>

#include "core/cache/response_cache.h"
#include "core/infer/inference_request.h"

namespace inferd {

class InferenceResponse;

// The key of `request` for the loaded version `owner`: every input's name,
// datatype, shape and bytes (in name order) and the requested outputs with
// their classification. Nothing when an input is not in CPU memory.
std::optional<CacheKey> MakeCacheKey(const InferenceRequest& request, uint64_t owner);

// The outputs `response` sends to its client, copied; nothing when one of
// them is not in CPU memory.
std::optional<CachedResponse> CopyForCache(const InferenceResponse& response);

// A response to `request` (bound to its model) holding `cached`'s outputs,
// each in memory from the client's allocator, as a backend's would be; the
// caller delivers it FINAL with `*status` (an error when an output could not
// be placed), then releases the request.
std::unique_ptr<InferenceResponse> ResponseFromCache(InferenceRequest& request,
                                                     const CachedResponse& cached,
                                                     Status* status);

}  // namespace inferd

#endif  // INFERD_CORE_INFER_RESPONSE_CACHING_H_
