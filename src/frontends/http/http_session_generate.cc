// The generate extension on one HTTP connection: /generate answers one JSON
// object once the request's FINAL flag shows its response was the only one;
// /generate_stream answers a Server-Sent Event per response as it comes, a
// model's error included.
#include <boost/asio/write.hpp>

#include <string_view>
#include <utility>

#include "common/server_error.h"
#include "http/beast_views.h"
#include "http/generate_response.h"
#include "http/http_session.h"
#include "http/model_inputs.h"

namespace inferd::http {
namespace asio = boost::asio;
using boost::system::error_code;

namespace {

// Triton's words for a /generate whose model did not answer exactly once.
constexpr std::string_view kNotOneResponse =
    "generate expects model to produce exactly 1 response, use generate stream for model that "
    "generates various number of responses";

}  // namespace

template <typename Transport>
void BasicHttpSession<Transport>::StartGenerate(const Route& route) {
  std::string body;
  if (!TakeDecodedBody(&body)) return;
  // The request names inputs but not their datatypes and shapes: the model's
  // metadata gives them (and an unknown model is a 404 here).
  std::vector<ModelInput> inputs;
  if (Status s = FetchModelInputs(shared_.server, route.model, route.model_version, &inputs);
      !s.ok()) {
    return WriteError(s);
  }
  ForwardedHeaders forwarded;
  if (Status s = CollectForwardedHeaders(&forwarded); !s.ok()) return WriteError(s);
  const bool streaming = route.endpoint == Endpoint::kModelGenerateStream;
  if (streaming) {
    stream_ = Stream();
    // HTTP/1.0 has no chunks: its stream ends when the connection closes.
    if (http_version_ != 11) {
      stream_.framing = BodyFraming::kUntilClose;
      keep_alive_ = false;
    }
  }
  generate_status_ = Status::Ok();
  auto context = std::make_unique<InferContext>(
      this->shared_from_this(), transport_.get_executor(), std::move(body),
      streaming ? InferContext::Reply::kGenerateStream : InferContext::Reply::kGenerate);
  context->set_forwarded_headers(std::move(forwarded));
  SetTraceContext(*context);
  ApplyKeyPriority(*context);
  if (Status s = InferContext::SubmitGenerate(context, shared_.server, shared_.allocator, route,
                                              inputs);
      !s.ok()) {
    return WriteError(s);
  }
  inflight_ = context.release();  // the server's callbacks own it now
  WatchForDisconnect();
}

template <typename Transport>
void BasicHttpSession<Transport>::OnGenerateResponse(InferContext& context,
                                                     INFERD_InferenceResponse* response,
                                                     uint32_t flags) {
  if (context.reply() == InferContext::Reply::kOpenAi) {
    return OnOpenAiResponse(context, response, flags);
  }
  const bool final = (flags & INFERD_RESPONSE_COMPLETE_FINAL) != 0;
  // Before anything is written: ending the disconnect watch cancels the
  // socket's operations, which must not include a write of this answer.
  if (final && inflight_ == &context) EndInflight();
  if (response != nullptr) ++context.response_count;
  if (closed_) {
    // Nobody to answer (a failed write closed the connection too).
    if (response != nullptr) DiscardServerError(INFERD_InferenceResponseDelete(response));
  } else if (context.reply() == InferContext::Reply::kGenerate) {
    CollectGenerateResponse(context, response);
    if (final) AnswerGenerate(context);
  } else {
    StreamResponse(response, final);
  }
  // The session answers a generate request until its FINAL, so no response
  // of it can reach a later request's answer.
  if (final) context.Unref();
}

template <typename Transport>
void BasicHttpSession<Transport>::CollectGenerateResponse(InferContext& context,
                                                          INFERD_InferenceResponse* response) {
  if (response == nullptr) return;
  if (context.response_count == 1) {
    json_.Clear();
    JsonWriter writer(json_);
    generate_status_ = RenderGenerateResponse(response, &writer);
  } else if (context.response_count == 2) {
    // The answer is an error now, whatever follows: spare the model the rest.
    context.Cancel();
  }
  DiscardServerError(INFERD_InferenceResponseDelete(response));
}

template <typename Transport>
void BasicHttpSession<Transport>::AnswerGenerate(const InferContext& context) {
  if (context.response_count != 1) {
    return WriteError(Status::Unsupported(std::string(kNotOneResponse)));
  }
  if (!generate_status_.ok()) return WriteError(generate_status_);
  ResponseHead head;
  head.http_version = http_version_;
  head.keep_alive = KeepAlive();
  head.content_length = json_.GetSize();
  SerializeResponseHead(head, &head_);
  buffers_.clear();
  buffers_.push_back(Buffer(head_));
  buffers_.push_back(Buffer(std::string_view(json_.GetString(), json_.GetSize())));
  Send();
}

template <typename Transport>
void BasicHttpSession<Transport>::StreamResponse(INFERD_InferenceResponse* response, bool final) {
  if (response != nullptr) {
    SseEvent& event = stream_.events.emplace_back();
    Status status;
    {
      JsonWriter writer(event.json());
      status = RenderGenerateResponse(response, &writer);
    }
    DiscardServerError(INFERD_InferenceResponseDelete(response));
    if (!status.ok()) {
      // The request was admitted, so the answer is an event stream (as
      // Triton's): a model's error is an event even before any other, since
      // SSE clients read events, not an error status and a JSON body. Only a
      // bad request (refused at admission, StartGenerate) is an HTTP error.
      event.Restart();
      JsonWriter writer(event.json());
      RenderGenerateError(status.message(), &writer);
    }
    event.Finish(stream_.framing == BodyFraming::kChunked);
  }
  stream_.final = stream_.final || final;
  if (!stream_.writing) WriteStream();
}

template <typename Transport>
void BasicHttpSession<Transport>::WriteStream() {
  buffers_.clear();
  if (!stream_.started) {
    stream_.started = true;
    ResponseHead head;
    head.http_version = http_version_;
    head.keep_alive = KeepAlive();
    head.content_type = kEventStreamContentType;
    head.framing = stream_.framing;
    SerializeResponseHead(head, &head_);
    buffers_.push_back(Buffer(head_));
  }
  for (const SseEvent& event : stream_.events) event.AppendTo(&buffers_);
  stream_.events_writing = stream_.events.size();
  if (stream_.final) {
    stream_.ended = true;
    if (stream_.framing == BodyFraming::kChunked) buffers_.push_back(Buffer(kLastChunk));
  }
  if (buffers_.empty()) {
    // Nothing to write: the end of a stream without chunks has no bytes.
    if (stream_.ended) EndStream(error_code());
    return;
  }
  stream_.writing = true;
  SetDeadline(TimedPhase::kWrite);
  asio::async_write(transport_, buffers_, [self = this->shared_from_this()](error_code ec, size_t) {
    self->OnStreamWrite(ec);
  });
}

template <typename Transport>
void BasicHttpSession<Transport>::OnStreamWrite(error_code ec) {
  stream_.writing = false;
  for (; stream_.events_writing > 0; --stream_.events_writing) stream_.events.pop_front();
  if (ec || closed_) {
    // Nobody reads the rest: stop the model from producing it.
    if (inflight_ != nullptr) inflight_->Cancel();
    return OnWrite(ec);
  }
  if (!stream_.ended) {
    if (!stream_.events.empty() || stream_.final) return WriteStream();
    ClearDeadline();  // the model is working on the next event
    return;
  }
  EndStream(ec);
}

template <typename Transport>
void BasicHttpSession<Transport>::EndStream(error_code ec) {
  StopWatching();  // no write is under way now
  OnWrite(ec);     // as any answer's end: the next request, or close
}

// The members defined here, for both transports (http_session.cc
// instantiates the rest of the class).
#define INFERD_INSTANTIATE_GENERATE(Transport)                                            \
  template void BasicHttpSession<Transport>::StartGenerate(const Route&);                 \
  template void BasicHttpSession<Transport>::OnGenerateResponse(                          \
      InferContext&, INFERD_InferenceResponse*, uint32_t);                                \
  template void BasicHttpSession<Transport>::CollectGenerateResponse(                     \
      InferContext&, INFERD_InferenceResponse*);                                          \
  template void BasicHttpSession<Transport>::AnswerGenerate(const InferContext&);         \
  template void BasicHttpSession<Transport>::StreamResponse(INFERD_InferenceResponse*, bool); \
  template void BasicHttpSession<Transport>::WriteStream();                               \
  template void BasicHttpSession<Transport>::OnStreamWrite(error_code);                   \
  template void BasicHttpSession<Transport>::EndStream(error_code);
INFERD_INSTANTIATE_GENERATE(PlainTransport)
#if INFERD_HTTP_TLS
INFERD_INSTANTIATE_GENERATE(TlsTransport)
#endif
#undef INFERD_INSTANTIATE_GENERATE

}  // namespace inferd::http
