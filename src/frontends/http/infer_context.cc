// Submitting one infer request and routing its callbacks to the session.
#include "http/infer_context.h"

#include <boost/asio/post.hpp>

#include <cstdlib>
#include <utility>

#include "common/server_error.h"
#include "http/generate_request.h"
#include "http/http_session.h"
#include "http/infer_request_builder.h"
#include "http/io_thread_busy.h"

namespace inferd::http {

InferContext::InferContext(std::shared_ptr<HttpSession> session, Strand strand, std::string body,
                           Reply reply)
    : work_(strand.get_inner_executor()),
      session_(std::move(session)),
      strand_(std::move(strand)),
      reply_(reply),
      body_(std::move(body)) {}

InferContext::~InferContext() {
  if (request_ != nullptr) DiscardServerError(INFERD_InferenceRequestDelete(request_));
}

namespace {

Status NoSharedMemory(const std::string& what) {
  return Status::Unsupported(what + " is in shared memory, which this server does not enable");
}

}  // namespace

Status InferContext::LocateSharedMemory(const SharedMemoryRegistry* registry) {
  for (ParsedInput& input : parsed_.inputs) {
    const SharedMemoryRef& ref = input.shared_memory;
    if (ref.region.empty()) continue;
    const std::string what = std::string("input '") + input.name + "'";
    if (registry == nullptr) return NoSharedMemory(what);
    SharedMemorySlice& slice = input_slices_.emplace_back();
    RETURN_IF_ERROR(registry->Slice(ref.region, ref.offset, ref.byte_size, what, &slice));
    input.data = slice.data;
  }
  for (const ParsedOutput& output : parsed_.outputs) {
    const SharedMemoryRef& ref = output.shared_memory;
    if (ref.region.empty()) continue;
    const std::string what = "output '" + output.name + "'";
    if (registry == nullptr) return NoSharedMemory(what);
    SharedMemoryOutput bound{output.name, ref.region, SharedMemorySlice()};
    RETURN_IF_ERROR(registry->Slice(ref.region, ref.offset, ref.byte_size, what, &bound.slice));
    shared_memory_outputs_.Add(std::move(bound));
    output_format_.any_shared_memory = true;
  }
  return Status::Ok();
}

Status InferContext::Submit(std::unique_ptr<InferContext>& context, INFERD_Server* server,
                            INFERD_ResponseAllocator* allocator,
                            const SharedMemoryRegistry* shared_memory, const Route& route,
                            size_t json_size) {
  InferContext& self = *context;
  ParsedInferRequest& parsed = self.parsed_;
  if (Status s = ParseInferRequest(self.body_.data(), self.body_.size(), json_size, &parsed);
      !s.ok()) {
    return s;
  }
  if (Status s = self.LocateSharedMemory(shared_memory); !s.ok()) return s;
  if (parsed.priority == 0) parsed.priority = self.default_priority_;
  if (Status s = BuildInferRequest(server, route.model, route.model_version, parsed,
                                   &self.request_);
      !s.ok()) {
    return s;
  }
  RETURN_IF_ERROR(SetForwardedHeaders(self.request_, self.forwarded_headers_));
  // /infer answers once: a decoupled model, which may answer any number of
  // times, is refused (UNSUPPORTED, naming the streaming endpoints).
  RETURN_IF_ERROR(
      StatusFromServerError(INFERD_InferenceRequestSetSingleResponse(self.request_, true)));
  // OnResponse posts to the session's strand from any thread: a short model
  // may run on this I/O thread rather than wake an instance thread.
  RETURN_IF_ERROR(StatusFromServerError(
      INFERD_InferenceRequestSetExecuteOnCaller(self.request_, self.execute_on_caller_)));
  // The response is rendered after the body is gone: keep the output names.
  self.output_format_.requested = std::move(parsed.outputs);
  self.output_format_.binary_by_default = parsed.binary_data_output;
  return self.Start(server, allocator);
}

Status InferContext::SubmitGenerate(std::unique_ptr<InferContext>& context, INFERD_Server* server,
                                    INFERD_ResponseAllocator* allocator, const Route& route,
                                    const std::vector<ModelInput>& inputs) {
  InferContext& self = *context;
  RETURN_IF_ERROR(ParseGenerateRequest(self.body_.data(), self.body_.size(), inputs,
                                       &self.parsed_));
  if (self.parsed_.priority == 0) self.parsed_.priority = self.default_priority_;
  RETURN_IF_ERROR(
      BuildInferRequest(server, route.model, route.model_version, self.parsed_, &self.request_));
  RETURN_IF_ERROR(SetForwardedHeaders(self.request_, self.forwarded_headers_));
  return self.Start(server, allocator);
}

Status InferContext::Start(INFERD_Server* server, INFERD_ResponseAllocator* allocator) {
  if (!traceparent_.empty()) {
    RETURN_IF_ERROR(StatusFromServerError(INFERD_InferenceRequestSetTraceContext(
        request_, traceparent_.c_str(), tracestate_.empty() ? nullptr : tracestate_.c_str())));
  }
  RETURN_IF_ERROR(StatusFromServerError(
      INFERD_InferenceRequestSetReleaseCallback(request_, OnRelease, this)));
  RETURN_IF_ERROR(StatusFromServerError(
      INFERD_InferenceRequestSetResponseCallback(request_, allocator, this, OnResponse, this)));
  // The model may execute right here, on this I/O thread.
  IoThreadBusy::Scope busy;
  return StatusFromServerError(INFERD_ServerInferAsync(server, request_));
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
  self->input_slices_.clear();
  self->Unref();
}

void InferContext::OnResponse(INFERD_InferenceResponse* response, uint32_t flags, void* userp) {
  auto* self = static_cast<InferContext*>(userp);
  if ((flags & INFERD_RESPONSE_COMPLETE_FINAL) != 0) {
    self->answered_.store(true, std::memory_order_release);
  }
  boost::asio::post(self->strand_, [self, response, flags] {
    self->session_->OnInferResponse(*self, response, flags);
  });
}

Status InferContext::AllocateOutput(const char*, size_t byte_size, void** buffer, void**) {
  if (byte_size == 0) return Status::Ok();
  *buffer = std::malloc(byte_size);
  if (*buffer == nullptr) return Status::Internal("out of memory for an output tensor");
  return Status::Ok();
}

void InferContext::ReleaseOutput(void* buffer, void*) { std::free(buffer); }

}  // namespace inferd::http
