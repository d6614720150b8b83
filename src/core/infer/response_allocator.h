// The struct behind INFERD_ResponseAllocator: the client's two callbacks.
#ifndef INFERD_CORE_INFER_RESPONSE_ALLOCATOR_H_
#define INFERD_CORE_INFER_RESPONSE_ALLOCATOR_H_

#include "inferd/server.h"

struct INFERD_ResponseAllocator {
  INFERD_ResponseAllocatorAllocFn alloc_fn;
  INFERD_ResponseAllocatorReleaseFn release_fn;
};

#endif  // INFERD_CORE_INFER_RESPONSE_ALLOCATOR_H_
