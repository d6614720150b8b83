// The path into a model for requests the server makes itself (an ensemble's
// steps, later a backend calling another model): the same admission,
// validation and scheduling as a client's request. InferenceServer (server/,
// above every floor that needs it) implements it. Thread-safe.
#ifndef INFERD_CORE_INFER_REQUEST_SUBMITTER_H_
#define INFERD_CORE_INFER_REQUEST_SUBMITTER_H_

#include "inferd/base/status.h"

namespace inferd {

class InferenceRequest;

class RequestSubmitter {
 public:
  virtual ~RequestSubmitter() = default;
  // Validates `request`, binds it to its model version and queues it, as
  // InferenceServer::InferAsync. On error nothing is queued and no callback
  // will run; otherwise its responses and release arrive through its route
  // and release_fn, on any thread, possibly before Submit returns.
  virtual Status Submit(InferenceRequest* request) = 0;
};

}  // namespace inferd

#endif  // INFERD_CORE_INFER_REQUEST_SUBMITTER_H_
