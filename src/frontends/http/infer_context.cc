// Submitting one infer request and routing its callbacks to the session.
#include "frontends/http/infer_context.h"

#include <boost/asio/post.hpp>

#include <cstdlib>

#include "frontends/http/http_session.h"
#include "frontends/http/infer_request_builder.h"

namespace inferd::http {

InferContext::InferContext(std::shared_ptr<HttpSession> session, Strand strand, std::string body)
    : work_(strand.get_inner_executor()),
      session_(std::move(session)),
      strand_(std::move(strand)),
      body_(std::move(body)) {}

InferContext::~InferContext() {
  if (request_ != nullptr) DiscardServerError(INFERD_InferenceRequestDelete(request_));
}

Status InferContext::Submit(std::unique_ptr<InferContext>& context, INFERD_Server* server,
                            INFERD_ResponseAllocator* allocator, const Route& route,
                            size_t json_size) {
  InferContext& self = *context;
  ParsedInferRequest& parsed = self.parsed_;
  if (Status s = ParseInferRequest(self.body_.data(), self.body_.size(), json_size, &parsed);
      !s.ok()) {
    return s;
  }
  if (Status s = BuildInferRequest(server, route.model, route.model_version, parsed,
                                   &self.request_);
      !s.ok()) {
    return s;
  }
  // The response is rendered after the body is gone: keep the output names.
  self.output_format_.requested = std::move(parsed.outputs);
  self.output_format_.binary_by_default = parsed.binary_data_output;
  if (Status s = Status::FromServerError(
          INFERD_InferenceRequestSetReleaseCallback(self.request_, OnRelease, &self));
      !s.ok()) {
    return s;
  }
  if (Status s = Status::FromServerError(INFERD_InferenceRequestSetResponseCallback(
          self.request_, allocator, nullptr, OnResponse, &self));
      !s.ok()) {
    return s;
  }
  return Status::FromServerError(INFERD_ServerInferAsync(server, self.request_));
}

void InferContext::Cancel() {
  DiscardServerError(INFERD_InferenceRequestCancel(request_));
}

void InferContext::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

void InferContext::OnRelease(INFERD_InferenceRequest*, uint32_t flags, void* userp) {
  if ((flags & INFERD_REQUEST_RELEASE_ALL) == 0) return;
  auto* self = static_cast<InferContext*>(userp);
  // The server reads the inputs no more: give their memory back now.
  self->parsed_ = ParsedInferRequest();
  self->body_ = std::string();
  self->Unref();
}

void InferContext::OnResponse(INFERD_InferenceResponse* response, uint32_t flags, void* userp) {
  auto* self = static_cast<InferContext*>(userp);
  boost::asio::post(self->strand_, [self, response, flags] {
    self->session_->OnInferResponse(*self, response, flags);
  });
}

INFERD_Error* InferContext::AllocateOutput(INFERD_ResponseAllocator*, const char*,
                                           size_t byte_size, INFERD_MemoryType, int64_t, void*,
                                           void** buffer, void** buffer_userp,
                                           INFERD_MemoryType* actual_memory_type,
                                           int64_t* actual_memory_type_id) {
  *buffer = nullptr;
  *buffer_userp = nullptr;
  *actual_memory_type = INFERD_MEMORY_CPU;
  *actual_memory_type_id = 0;
  if (byte_size == 0) return nullptr;
  *buffer = std::malloc(byte_size);
  if (*buffer == nullptr) {
    return INFERD_ErrorNew(INFERD_ERROR_INTERNAL, "out of memory for an output tensor");
  }
  return nullptr;
}

INFERD_Error* InferContext::ReleaseOutput(INFERD_ResponseAllocator*, void* buffer, void*, size_t,
                                          INFERD_MemoryType, int64_t) {
  std::free(buffer);
  return nullptr;
}

}  // namespace inferd::http
