// The ModelStreamInfer calls open now, so that the exit's drain can end them:
// a stream stays open for as long as its client keeps it, and gRPC's
// Shutdown waits for every call, so an idle stream would otherwise hold the
// exit until its timeout. Thread-safe.
#ifndef INFERD_FRONTENDS_GRPC_STREAM_REGISTRY_H_
#define INFERD_FRONTENDS_GRPC_STREAM_REGISTRY_H_

#include <unordered_set>
#include <vector>

#include "inferd/base/mutex.h"
#include "inferd/base/thread_annotations.h"

namespace inferd::grpc_frontend {

class StreamReactor;

class StreamRegistry {
 public:
  // Registers a new stream; false once the drain began, and the stream is
  // then to end at once instead.
  bool Add(StreamReactor* stream) EXCLUDES(mu_);
  // From the stream's OnDone, before it is deleted.
  void Remove(StreamReactor* stream) EXCLUDES(mu_);
  // Refuses new streams from now on and returns those open, each asked to
  // end under the registry's lock (StreamReactor::EndForExit) while it
  // cannot be deleted. Of those, the ones to Finish now are in the result;
  // the caller finishes them after this returns (outside the lock, as
  // Finish may delete a stream at once).
  std::vector<StreamReactor*> BeginDrain() EXCLUDES(mu_);

 private:
  Mutex mu_;
  std::unordered_set<StreamReactor*> open_ GUARDED_BY(mu_);
  bool draining_ GUARDED_BY(mu_) = false;
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_STREAM_REGISTRY_H_
