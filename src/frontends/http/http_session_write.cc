// Writing the answers of one HTTP connection (http_session.h): an infer
// response as one gather write (its binary outputs from the response's own
// memory, unless compressed), other answers as a JSON or text body.
#include <boost/asio/write.hpp>

#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "common/server_error.h"
#include "http/beast_views.h"
#include "http/http_session.h"
#include "http/infer_response_writer.h"
#include "http/response_head.h"

namespace inferd::http {
namespace asio = boost::asio;
using boost::system::error_code;

namespace {

// Larger reusable response buffers are given back after use.
constexpr size_t kKeepBufferBytes = 1 << 20;

}  // namespace

template <typename Transport>
void BasicHttpSession<Transport>::WriteInferResponse(InferContext& context,
                                                     INFERD_InferenceResponse* response) {
  binary_.clear();
  if (Status s = RenderInferResponse(response, context.output_format(), &json_, &binary_);
      !s.ok()) {
    DiscardServerError(INFERD_InferenceResponseDelete(response));
    return WriteError(s);
  }
  const std::string_view json(json_.GetString(), json_.GetSize());
  ResponseHead head;
  head.http_version = http_version_;
  head.keep_alive = KeepAlive();
  const char* traceparent = "";
  DiscardServerError(INFERD_InferenceResponseTraceParent(response, &traceparent));
  // Copied: the response may be deleted before the head is written. On the
  // stack, not the heap: a traceparent is 55 characters.
  char traceresponse[64];
  const size_t traceresponse_length = strnlen(traceparent, sizeof(traceresponse));
  std::memcpy(traceresponse, traceparent, traceresponse_length);
  head.traceresponse = std::string_view(traceresponse, traceresponse_length);
  if (!binary_.empty()) {
    head.content_type = kBinaryContentType;
    head.inference_header_length = json.size();
    if (const std::string_view vendor = shared_.routes->binary_content_type(); !vendor.empty()) {
      content_type_.assign(vendor).append(std::to_string(json.size()));
      head.content_type = content_type_;
    }
  }
  buffers_.clear();
  if (response_encoding_ != Encoding::kIdentity) {
    // Compressing copies the outputs anyway: the response can go now.
    body_.clear();
    Compressor compressor(response_encoding_);
    Status s = compressor.Append(json, binary_.empty(), &body_);
    for (size_t i = 0; s.ok() && i < binary_.size(); ++i) {
      s = compressor.Append(binary_[i], i + 1 == binary_.size(), &body_);
    }
    DiscardServerError(INFERD_InferenceResponseDelete(response));
    if (!s.ok()) return WriteError(s);
    head.content_encoding = response_encoding_;
    head.content_length = body_.size();
    SerializeResponseHead(head, &head_);
    buffers_.push_back(Buffer(head_));
    buffers_.push_back(Buffer(body_));
    return Send();
  }
  response_ = response;  // the binary outputs are written from its memory
  head.content_length = json.size();
  for (const std::string_view piece : binary_) head.content_length += piece.size();
  SerializeResponseHead(head, &head_);
  buffers_.push_back(Buffer(head_));
  buffers_.push_back(Buffer(json));
  for (const std::string_view piece : binary_) buffers_.push_back(Buffer(piece));
  Send();
}

template <typename Transport>
void BasicHttpSession<Transport>::WriteBody(unsigned status, std::string body,
                                            std::string_view content_type,
                                            std::string_view extra_headers,
                                            uint64_t retry_after_s) {
  ResponseHead head;
  head.status = status;
  head.content_type = content_type;
  head.extra_headers = extra_headers;
  head.retry_after_s = retry_after_s;
  head.http_version = http_version_;
  head.keep_alive = KeepAlive();
  head.content_length = body.size();
  body_ = std::move(body);
  SerializeResponseHead(head, &head_);
  buffers_.clear();
  buffers_.push_back(Buffer(head_));
  buffers_.push_back(Buffer(body_));
  Send();
}

template <typename Transport>
void BasicHttpSession<Transport>::WriteError(const HttpError& error) {
  if (openai_errors_) {
    openai::ApiError api_error = openai::FromStatus(error.status(), error.http_status());
    api_error.headers += error.headers();  // after FromStatus's Retry-After, if any
    return WriteOpenAiError(api_error);
  }
  // Whole seconds, rounded up: a client that waits that long finds room.
  const uint64_t retry_after_s = (error.status().retry_after_ms() + 999) / 1000;
  WriteBody(error.http_status(), ErrorJson(error.message()), kJsonContentType, error.headers(),
            retry_after_s);
}

template <typename Transport>
void BasicHttpSession<Transport>::WriteAnswer(StatusOr<EndpointResponse> answer) {
  if (!answer.ok()) return WriteError(answer.status());
  WriteBody(answer->status, std::move(answer->body), answer->content_type);
}

template <typename Transport>
void BasicHttpSession<Transport>::Send() {
  SetDeadline(TimedPhase::kWrite);
  asio::async_write(transport_, buffers_, [self = this->shared_from_this()](error_code ec, size_t) {
    self->OnWrite(ec);
  });
}

template <typename Transport>
void BasicHttpSession<Transport>::OnWrite(error_code ec) {
  if (response_ != nullptr) {
    DiscardServerError(INFERD_InferenceResponseDelete(response_));
    response_ = nullptr;
  }
  if (body_.capacity() > kKeepBufferBytes) std::string().swap(body_);
  if (json_.GetSize() > kKeepBufferBytes) {
    json_.Clear();
    json_.ShrinkToFit();
  }
  busy_ = false;
  if (ec || closed_) return Close();
  if (!KeepAlive()) return EndConnection();
  ReadRequest();
}

#define INFERD_INSTANTIATE_WRITE(Transport)                                                  \
  template void BasicHttpSession<Transport>::WriteInferResponse(InferContext&,               \
                                                                INFERD_InferenceResponse*);  \
  template void BasicHttpSession<Transport>::WriteBody(unsigned, std::string,                \
                                                       std::string_view, std::string_view,   \
                                                       uint64_t);                            \
  template void BasicHttpSession<Transport>::WriteError(const HttpError&);                   \
  template void BasicHttpSession<Transport>::WriteAnswer(StatusOr<EndpointResponse>);        \
  template void BasicHttpSession<Transport>::Send();                                         \
  template void BasicHttpSession<Transport>::OnWrite(error_code);
INFERD_INSTANTIATE_WRITE(PlainTransport)
#if INFERD_HTTP_TLS
INFERD_INSTANTIATE_WRITE(TlsTransport)
#endif
#undef INFERD_INSTANTIATE_WRITE

}  // namespace inferd::http
