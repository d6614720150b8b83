// The open ModelStreamInfer calls, for the exit's drain.
#include "grpc/stream_registry.h"

#include "grpc/stream_reactor.h"

namespace inferd::grpc_frontend {

bool StreamRegistry::Add(StreamReactor* stream) {
  MutexLock lock(&mu_);
  if (draining_) return false;
  open_.insert(stream);
  return true;
}

void StreamRegistry::Remove(StreamReactor* stream) {
  MutexLock lock(&mu_);
  open_.erase(stream);
}

std::vector<StreamReactor*> StreamRegistry::BeginDrain() {
  std::vector<StreamReactor*> to_finish;
  MutexLock lock(&mu_);
  draining_ = true;
  for (StreamReactor* stream : open_) {
    if (stream->EndForExit()) to_finish.push_back(stream);
  }
  return to_finish;
}

}  // namespace inferd::grpc_frontend
