// What a scheduler that lets backends reschedule requests (the sequence
// batcher of an iterative sequence: backend.h INFERD_REQUEST_RELEASE_RESCHEDULE)
// lends each request it queues. The request calls back into it: Reschedule
// when its backend releases it with RESCHEDULE, Released when it ends for
// good (however it ends: a backend's release with ALL, an error the server
// answers, the scheduler stopping). scheduler/ sits above infer/: this is the
// seam between them. Implementations are thread-safe and outlive every
// request they are lent to (the model version owns both the scheduler and a
// reference from each of its requests).
#ifndef INFERD_CORE_INFER_REQUEST_RESCHEDULER_H_
#define INFERD_CORE_INFER_REQUEST_RESCHEDULER_H_

#include "inferd/base/status.h"

namespace inferd {

class InferenceRequest;

class RequestRescheduler {
 public:
  virtual ~RequestRescheduler() = default;
  // Queues `request` again, as it is (inputs and all; nothing is copied). On
  // error nothing was queued and the caller still owns the request.
  virtual Status Reschedule(InferenceRequest* request) = 0;
  // `request` ends: the scheduler forgets it (an iterative sequence ends with
  // its request). Called once, before the client's release callback.
  virtual void Released(InferenceRequest* request) = 0;
};

}  // namespace inferd

#endif  // INFERD_CORE_INFER_REQUEST_RESCHEDULER_H_
