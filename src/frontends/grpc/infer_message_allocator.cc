// ModelInfer messages on a per-call arena.
#include "grpc/infer_message_allocator.h"

#include <google/protobuf/arena.h>

#include <cstddef>

namespace inferd::grpc_frontend {
namespace {

using inference::ModelInferRequest;
using inference::ModelInferResponse;

// Holds a small request (a few tensors of a few KiB) and its response without
// asking the heap for more; larger ones grow the arena block by block.
constexpr size_t kFirstBlockBytes = 4096;

class ArenaMessages final : public grpc::MessageHolder<ModelInferRequest, ModelInferResponse> {
 public:
  ArenaMessages() : arena_(first_block_, sizeof(first_block_)) {
    set_request(google::protobuf::Arena::CreateMessage<ModelInferRequest>(&arena_));
    set_response(google::protobuf::Arena::CreateMessage<ModelInferResponse>(&arena_));
  }
  // gRPC calls it once the call is done with both messages.
  void Release() override { delete this; }

 private:
  alignas(std::max_align_t) char first_block_[kFirstBlockBytes];
  google::protobuf::Arena arena_;  // after first_block_, which it uses
};

}  // namespace

grpc::MessageHolder<ModelInferRequest, ModelInferResponse>*
InferMessageAllocator::AllocateMessages() {
  return new ArenaMessages();
}

}  // namespace inferd::grpc_frontend
