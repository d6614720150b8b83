// The server-wide cap on requests in flight per model
// (--model-max-inflight-requests): past it a client's request is refused at
// once with UNAVAILABLE instead of queueing without bound. A model whose
// dynamic batcher bounds every one of its queues (max_queue_size) keeps
// Triton's documented behaviour: its own queue policy decides, not the cap.
#ifndef INFERD_CORE_MODEL_INFLIGHT_LIMIT_H_
#define INFERD_CORE_MODEL_INFLIGHT_LIMIT_H_

#include <cstdint>
#include <string>

#include "inferd/base/status.h"
#include "model_config.pb.h"

namespace inferd {

// The cap `server_limit` (0: none) means for a model with `config`: 0 when
// the config's queue policy bounds its queue itself, else `server_limit`.
uint64_t InflightLimitFor(uint64_t server_limit, const inference::ModelConfig& config);

// The UNAVAILABLE a request past the cap gets, naming the model and the cap.
Status InflightLimitReached(const std::string& model, uint64_t limit);

}  // namespace inferd

#endif  // INFERD_CORE_MODEL_INFLIGHT_LIMIT_H_
