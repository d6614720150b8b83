// A unary call of any method but ModelInfer: its request and response
// messages, and the method it belongs to (gRPC's Request<Method>, its
// restriction category, the function that serves it). The serving function
// finishes the call, at once or later from another thread (a model load runs
// on the BlockingWorker). Every call of the method awaits the next one as it
// arrives. See queue_call.h for the life of a call.
#ifndef INFERD_FRONTENDS_GRPC_METHOD_CALL_H_
#define INFERD_FRONTENDS_GRPC_METHOD_CALL_H_

#include <optional>

#include "common/api_restrictions.h"
#include "grpc/access_check.h"
#include "grpc/call_site.h"
#include "grpc/queue_call.h"

namespace inferd::grpc_frontend {

template <class Request, class Response>
class MethodCall final : public UnaryQueueCall<Response> {
 public:
  using Service = inference::GRPCInferenceService::AsyncService;
  using RequestFn = void (Service::*)(grpc::ServerContext*, Request*,
                                      grpc::ServerAsyncResponseWriter<Response>*,
                                      grpc::CompletionQueue*, grpc::ServerCompletionQueue*, void*);
  using ServeFn = void (*)(const ServiceContext&, MethodCall&);
  struct Method {
    RequestFn request;
    ApiCategory category;
    ServeFn serve;
  };

  // Asks gRPC for the next call of `method` on the site's queue.
  static void Await(const CallSite& site, const Method& method) {
    auto* call = new MethodCall(site, method);
    call->QueueCall::Await();
  }

  const Request& request() const { return request_; }
  Response* response() { return &response_; }

 private:
  MethodCall(const CallSite& site, const Method& method)
      : UnaryQueueCall<Response>(site.queue, site.live, &response_), site_(site),
        method_(method) {}

  void RequestCall(grpc::ServerCompletionQueue* queue, void* tag) override {
    (site_.service->*method_.request)(this->context(), &request_, this->writer(), queue, queue,
                                      tag);
  }

  void OnArrived() override {
    Await(site_, method_);
    grpc::Status refusal =
        CallRefusal(*site_.context, method_.category, std::nullopt, *this->context());
    if (!refusal.ok()) {
      this->Finish(refusal);
      return;
    }
    method_.serve(*site_.context, *this);
  }

  const CallSite& site_;
  const Method method_;
  Request request_;
  Response response_;
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_METHOD_CALL_H_
