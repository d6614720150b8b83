// C ABI: inference requests, response allocators and submission (server.h).
#include "core/api/error.h"
#include "core/infer/inference_request.h"
#include "core/infer/response_allocator.h"
#include "core/server/inference_server.h"
#include "core/trace/trace_context.h"

using inferd::GuardedCall;
using inferd::InferenceRequest;
using inferd::Status;

namespace {

InferenceRequest* Unwrap(INFERD_InferenceRequest* request) {
  return reinterpret_cast<InferenceRequest*>(request);
}

// Applies `set` to the request after checking the handle.
template <typename Set>
INFERD_Error* WithRequest(INFERD_InferenceRequest* request, Set&& set) {
  return GuardedCall([&]() -> Status {
    INFERD_REQUIRE_ARG(request);
    return set(*Unwrap(request));
  });
}

}  // namespace

extern "C" {

INFERD_Error* INFERD_ResponseAllocatorNew(INFERD_ResponseAllocator** allocator,
                                          INFERD_ResponseAllocatorAllocFn alloc_fn,
                                          INFERD_ResponseAllocatorReleaseFn release_fn) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(allocator);
    INFERD_REQUIRE_ARG(alloc_fn);
    *allocator = new INFERD_ResponseAllocator{alloc_fn, release_fn};
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ResponseAllocatorDelete(INFERD_ResponseAllocator* allocator) {
  delete allocator;
  return nullptr;
}

INFERD_Error* INFERD_InferenceRequestNew(INFERD_InferenceRequest** request, INFERD_Server* server,
                                         const char* model_name, int64_t model_version) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(request);
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(model_name);
    *request = reinterpret_cast<INFERD_InferenceRequest*>(
        new InferenceRequest(model_name, model_version));
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestDelete(INFERD_InferenceRequest* request) {
  delete Unwrap(request);
  return nullptr;
}

INFERD_Error* INFERD_InferenceRequestSetId(INFERD_InferenceRequest* request, const char* id) {
  return WithRequest(request, [&](InferenceRequest& r) {
    r.id = id ? id : "";
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetFlags(INFERD_InferenceRequest* request, uint32_t flags) {
  return WithRequest(request, [&](InferenceRequest& r) {
    r.flags = flags;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetCorrelationId(INFERD_InferenceRequest* request,
                                                      uint64_t correlation_id) {
  return WithRequest(request, [&](InferenceRequest& r) {
    r.correlation_id = correlation_id;
    r.correlation_id_string.clear();
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetCorrelationIdString(INFERD_InferenceRequest* request,
                                                            const char* correlation_id) {
  return WithRequest(request, [&](InferenceRequest& r) {
    INFERD_REQUIRE_ARG(correlation_id);
    r.correlation_id = 0;
    r.correlation_id_string = correlation_id;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetPriority(INFERD_InferenceRequest* request,
                                                 uint32_t priority) {
  return WithRequest(request, [&](InferenceRequest& r) {
    r.priority = priority;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetSingleResponse(INFERD_InferenceRequest* request,
                                                      bool single_response) {
  return WithRequest(request, [&](InferenceRequest& r) {
    r.single_response = single_response;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetTraceContext(INFERD_InferenceRequest* request,
                                                    const char* traceparent,
                                                    const char* tracestate) {
  return WithRequest(request, [&](InferenceRequest& r) {
    INFERD_REQUIRE_ARG(traceparent);
    std::optional<inferd::TraceContext> context = inferd::ParseTraceparent(traceparent);
    if (!context) return Status::Ok();
    if (tracestate != nullptr) context->tracestate = tracestate;
    r.trace_context = std::make_shared<const inferd::TraceContext>(std::move(*context));
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetExecuteOnCaller(INFERD_InferenceRequest* request,
                                                       bool allowed) {
  return WithRequest(request, [&](InferenceRequest& r) {
    r.may_execute_on_caller = allowed;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetTimeoutMicroseconds(INFERD_InferenceRequest* request,
                                                            uint64_t timeout_us) {
  return WithRequest(request, [&](InferenceRequest& r) {
    r.timeout_us = timeout_us;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetStringParameter(INFERD_InferenceRequest* request,
                                                        const char* name, const char* value) {
  return WithRequest(request, [&](InferenceRequest& r) {
    INFERD_REQUIRE_ARG(name);
    INFERD_REQUIRE_ARG(value);
    r.parameters.push_back({name, std::string(value)});
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetIntParameter(INFERD_InferenceRequest* request,
                                                     const char* name, int64_t value) {
  return WithRequest(request, [&](InferenceRequest& r) {
    INFERD_REQUIRE_ARG(name);
    r.parameters.push_back({name, value});
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetBoolParameter(INFERD_InferenceRequest* request,
                                                      const char* name, bool value) {
  return WithRequest(request, [&](InferenceRequest& r) {
    INFERD_REQUIRE_ARG(name);
    r.parameters.push_back({name, value});
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetDoubleParameter(INFERD_InferenceRequest* request,
                                                        const char* name, double value) {
  return WithRequest(request, [&](InferenceRequest& r) {
    INFERD_REQUIRE_ARG(name);
    r.parameters.push_back({name, value});
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestAddInput(INFERD_InferenceRequest* request, const char* name,
                                              INFERD_DataType datatype, const int64_t* shape,
                                              uint64_t dim_count) {
  return WithRequest(request, [&](InferenceRequest& r) {
    INFERD_REQUIRE_ARG(name);
    if (dim_count > 0) INFERD_REQUIRE_ARG(shape);
    if (datatype == INFERD_TYPE_INVALID || datatype > INFERD_TYPE_BF16) {
      return Status::InvalidArg(std::string("input '") + name + "': invalid datatype");
    }
    return r.AddInput(name, datatype, shape, dim_count);
  });
}

INFERD_Error* INFERD_InferenceRequestAppendInputData(INFERD_InferenceRequest* request,
                                                     const char* name, const void* base,
                                                     size_t byte_size,
                                                     INFERD_MemoryType memory_type,
                                                     int64_t memory_type_id) {
  return WithRequest(request, [&](InferenceRequest& r) {
    INFERD_REQUIRE_ARG(name);
    if (byte_size > 0) INFERD_REQUIRE_ARG(base);
    return r.AppendInputData(name, {base, byte_size, memory_type, memory_type_id});
  });
}

INFERD_Error* INFERD_InferenceRequestAddRequestedOutput(INFERD_InferenceRequest* request,
                                                        const char* name) {
  return WithRequest(request, [&](InferenceRequest& r) {
    INFERD_REQUIRE_ARG(name);
    for (const std::string& existing : r.requested_outputs) {
      if (existing == name) {
        return Status::AlreadyExists(std::string("output '") + name + "' was already requested");
      }
    }
    r.requested_outputs.emplace_back(name);
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetOutputClassification(INFERD_InferenceRequest* request,
                                                             const char* name,
                                                             uint32_t class_count) {
  return WithRequest(request, [&](InferenceRequest& r) {
    INFERD_REQUIRE_ARG(name);
    if (class_count == 0) {
      return Status::InvalidArg(std::string("output '") + name +
                                "': the classification count must be at least 1");
    }
    bool requested = false;
    for (const std::string& existing : r.requested_outputs) requested = requested || existing == name;
    if (!requested) r.requested_outputs.emplace_back(name);
    for (auto& [classified, count] : r.classifications) {
      if (classified == name) {
        count = class_count;
        return Status::Ok();
      }
    }
    r.classifications.emplace_back(name, class_count);
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetReleaseCallback(INFERD_InferenceRequest* request,
                                                        INFERD_InferenceRequestReleaseFn release_fn,
                                                        void* userp) {
  return WithRequest(request, [&](InferenceRequest& r) {
    r.release_fn = release_fn;
    r.release_userp = userp;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestSetResponseCallback(
    INFERD_InferenceRequest* request, INFERD_ResponseAllocator* allocator, void* allocator_userp,
    INFERD_InferenceResponseCompleteFn response_fn, void* response_userp) {
  return WithRequest(request, [&](InferenceRequest& r) {
    r.route = {allocator, allocator_userp, response_fn, response_userp};
    return Status::Ok();
  });
}

INFERD_Error* INFERD_InferenceRequestCancel(INFERD_InferenceRequest* request) {
  return WithRequest(request, [&](InferenceRequest& r) {
    r.Cancel();
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerInferAsync(INFERD_Server* server, INFERD_InferenceRequest* request) {
  return WithRequest(request, [&](InferenceRequest& r) {
    INFERD_REQUIRE_ARG(server);
    if (r.route.response_fn == nullptr) {
      return Status::InvalidArg("the request has no response callback");
    }
    return inferd::InferenceServer::FromHandle(server)->InferAsync(&r);
  });
}

}  // extern "C"
