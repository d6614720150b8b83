// One HTTP/1.1 connection of the KServe v2 REST frontend.
#include "http/http_session.h"

#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include "common/server_error.h"
#include "common/auth/credential_headers.h"
#include "http/access_check.h"
#include "http/beast_views.h"
#include "http/binary_section.h"
#include "http/dashboard/dashboard_endpoint.h"
#include "http/endpoint_category.h"
#include "http/endpoints.h"
#include "http/infer_response_writer.h"
#include "http/response_head.h"
#include "http/shared_memory_endpoints.h"

namespace inferd::http {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using boost::system::error_code;

namespace {

// How long a TLS connection that ends waits for the client's close_notify.
constexpr std::chrono::milliseconds kCloseNotifyWait{1000};
// The first byte of a TLS alert record (RFC 8446 5.1, ContentType alert).
constexpr char kTlsAlertRecord = 21;
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

// The value of header `name`; empty when absent.
template <typename Request>
std::string_view Field(const Request& request, std::string_view name) {
  return View(request[beast::string_view(name.data(), name.size())]);
}

bool IsHttpError(error_code ec) {
  return ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category();
}

Method ToMethod(bhttp::verb verb) {
  if (verb == bhttp::verb::get) return Method::kGet;
  if (verb == bhttp::verb::post) return Method::kPost;
  return Method::kOther;
}

// A Beast request's fields, as a RouteMap reads them.
template <typename Request>
class BeastHeaders final : public RequestHeaders {
 public:
  explicit BeastHeaders(const Request& request) : request_(request) {}
  std::string_view Get(std::string_view name) const override { return Field(request_, name); }

 private:
  const Request& request_;
};

}  // namespace

template <typename Transport>
BasicHttpSession<Transport>::BasicHttpSession(Transport transport, SessionShared& shared)
    : transport_(std::move(transport)),
      shared_(shared),
      deadline_timer_(transport_.get_executor()),
      openai_timer_(transport_.get_executor()) {
  if constexpr (kTls) tls_timer_.emplace(transport_.get_executor());
}

template <typename Transport>
BasicHttpSession<Transport>::~BasicHttpSession() {
  if (response_ != nullptr) DiscardServerError(INFERD_InferenceResponseDelete(response_));
  if (registered_) shared_.registry.Remove(registration_);
}

template <typename Transport>
void BasicHttpSession<Transport>::Start() {
  registration_ = shared_.registry.Add(this->weak_from_this());
  registered_ = true;
  asio::dispatch(transport_.get_executor(), [self = this->shared_from_this()] { self->Begin(); });
}

template <typename Transport>
void BasicHttpSession<Transport>::Begin() {
  if constexpr (!kTls) {
    ReadRequest();
  } else {
    // A client that connects and never finishes its handshake is closed.
    tls_timer_->expires_after(shared_.tls_handshake_timeout);
    tls_timer_->async_wait([self = this->shared_from_this()](error_code ec) {
      if (!ec && !self->handshake_done_) self->Close();
    });
    transport_.async_handshake(Transport::server,
                               [self = this->shared_from_this()](error_code ec) {
                                 self->handshake_done_ = true;
                                 self->tls_timer_->cancel();
                                 // Not TLS (a plain HTTP client), a certificate refused,
                                 // or the timeout: nothing to answer, only to close.
                                 if (ec || self->closed_) return self->Close();
                                 self->ReadRequest();
                               });
  }
}

template <typename Transport>
void BasicHttpSession<Transport>::Shutdown(bool force) {
  asio::post(transport_.get_executor(), [self = this->shared_from_this(), force] {
    self->stopping_ = true;
    if (force && self->inflight_ != nullptr) self->inflight_->Cancel();
    if (force || !self->busy_) self->Close();
  });
}

template <typename Transport>
void BasicHttpSession<Transport>::AnswerAtExit(std::string why) {
  asio::post(transport_.get_executor(), [self = this->shared_from_this(), why = std::move(why)] {
    self->stopping_ = true;  // the answer is the connection's last
    InferContext* waiting = self->inflight_;
    if (waiting != nullptr && waiting->reply() == InferContext::Reply::kInfer &&
        !waiting->responded && !self->closed_) {
      waiting->responded = true;  // OnInferResponse drops what comes later
      waiting->Cancel();
      self->EndInflight();
      return self->WriteError(Status::Unavailable(why));
    }
    if (!self->busy_ || waiting != nullptr) self->Close();
  });
}

template <typename Transport>
void BasicHttpSession<Transport>::ReadRequest() {
  if (closed_) return;
  parser_.emplace();
  parser_->body_limit(shared_.limits.max_body_bytes);
  parser_->header_limit(static_cast<uint32_t>(
      std::min<size_t>(shared_.limits.max_header_bytes, UINT32_MAX)));
  SetDeadline(TimedPhase::kHead);
  // Beast reads as much as the buffer has room for (512 bytes into an empty
  // one): with a page of room a small request is one recv, not five.
  if (buffer_.capacity() < kMinReadRoom) buffer_.reserve(kMinReadRoom);
  bhttp::async_read_header(transport_, buffer_, *parser_,
                           [self = this->shared_from_this()](error_code ec, size_t) {
                             self->OnHeader(ec);
                           });
}

template <typename Transport>
void BasicHttpSession<Transport>::OnHeader(error_code ec) {
  if (ec) return OnReadError(ec);
  if (parser_->is_done()) return Dispatch();
  SetDeadline(TimedPhase::kBody);
  if (beast::iequals(parser_->get()[bhttp::field::expect], "100-continue")) {
    asio::async_write(transport_, Buffer(kContinue),
                      [self = this->shared_from_this()](error_code ec, size_t) {
                        if (ec) return self->Close();
                        self->ReadBody();
                      });
    return;
  }
  ReadBody();
}

template <typename Transport>
void BasicHttpSession<Transport>::ReadBody() {
  // Room for the whole body (up to Beast's 64 KiB a read), so it comes in as
  // few recvs as the socket allows.
  if (const auto length = parser_->content_length()) {
    const size_t room = static_cast<size_t>(std::min<uint64_t>(*length, kMaxReadRoom));
    if (buffer_.capacity() - buffer_.size() < room) buffer_.reserve(buffer_.size() + room);
  }
  bhttp::async_read(transport_, buffer_, *parser_,
                    [self = this->shared_from_this()](error_code ec, size_t) {
                      self->OnBody(ec);
                    });
}

template <typename Transport>
void BasicHttpSession<Transport>::OnBody(error_code ec) {
  if (ec) return OnReadError(ec);
  Dispatch();
}

template <typename Transport>
void BasicHttpSession<Transport>::OnReadError(error_code ec) {
  if (closed_ || stopping_) return Close();
  if (!IsHttpError(ec) || ec == bhttp::error::end_of_stream ||
      ec == bhttp::error::partial_message) {
    return Close();  // the client went away
  }
  // The stream cannot be trusted past a bad message: answer, then close.
  busy_ = true;
  keep_alive_ = false;
  if (ec == bhttp::error::body_limit || ec == bhttp::error::header_limit) {
    return WriteError(SizeLimitError(ec));
  }
  WriteError(Status::InvalidArg("malformed HTTP request: " + ec.message()));
}

template <typename Transport>
void BasicHttpSession<Transport>::Dispatch() {
  busy_ = true;
  ClearDeadline();  // the server takes the time it needs; the client's disconnect is watched
  auto& request = parser_->get();
  http_version_ = request.version() == 10 ? 10 : 11;
  keep_alive_ = request.keep_alive();
  response_encoding_ = Encoding::kIdentity;
  Route route;
  const BeastHeaders headers(request);
  // Even a path it does not know gets the OpenAI API's error object.
  openai_errors_ = shared_.routes->serves_openai() && View(request.target()).starts_with("/v1/");
  if (HttpError e = shared_.routes->Match(ToMethod(request.method()), View(request.target()),
                                          headers, &route);
      !e.ok()) {
    return WriteError(e);
  }
  if (!shared_.restrictions.empty()) {
    if (HttpError e = CheckRestriction(shared_.restrictions, route.endpoint, headers); !e.ok()) {
      return WriteError(e);
    }
  }
  if (shared_.access != nullptr) {
    access_ = CheckAccess(*shared_.access, route, headers);
    if (!access_.allowed()) return WriteError(AccessError(access_));
  }
  if (route.endpoint == Endpoint::kModelInfer) return StartInfer(route);
  if (IsOpenAiEndpoint(route.endpoint)) return StartOpenAi(route);
  if (route.endpoint == Endpoint::kModelGenerate ||
      route.endpoint == Endpoint::kModelGenerateStream) {
    return StartGenerate(route);
  }
  if (route.endpoint == Endpoint::kRepositoryLoad || route.endpoint == Endpoint::kRepositoryUnload) {
    return StartBlocking(std::move(route));
  }
  if (IsDashboardEndpoint(route.endpoint)) {
    return WriteAnswer(HandleDashboardEndpoint(shared_.server, route, shared_.repository_api));
  }
  StatusOr<EndpointResponse> answer =
      IsSharedMemoryEndpoint(route.endpoint)
          ? HandleSharedMemoryEndpoint(shared_.shared_memory, route, request.body())
          : HandleEndpoint(shared_.server, route, request.body());
  if (route.endpoint == Endpoint::kMetrics && answer.ok() && shared_.openai_metrics != nullptr) {
    answer->body += shared_.openai_metrics->Render();
  }
  if (route.endpoint == Endpoint::kMetrics && answer.ok() && shared_.access != nullptr) {
    answer->body += shared_.access->RenderMetrics();
  }
  WriteAnswer(std::move(answer));
}

template <typename Transport>
Status BasicHttpSession<Transport>::CollectForwardedHeaders(ForwardedHeaders* out) const {
  if (shared_.header_forwarder == nullptr) return Status::Ok();
  for (const auto& field : parser_->get()) {
    RETURN_IF_ERROR(shared_.header_forwarder->Collect(View(field.name_string()),
                                                      View(field.value()), out));
  }
  if (shared_.access != nullptr) auth::DropCredentialHeaders(out);
  return Status::Ok();
}

template <typename Transport>
void BasicHttpSession<Transport>::SetTraceContext(InferContext& context) const {
  const auto& request = parser_->get();
  const auto traceparent = request.find("traceparent");
  if (traceparent == request.end()) return;
  context.set_trace_context(std::string(View(traceparent->value())),
                            std::string(View(request["tracestate"])));
}

template <typename Transport>
bool BasicHttpSession<Transport>::TakeDecodedBody(std::string* body) {
  auto& request = parser_->get();
  *body = std::move(request.body());
  if (HttpError e = DecodeContentEncoding(View(request[bhttp::field::content_encoding]),
                                          shared_.limits.max_body_bytes, body);
      !e.ok()) {
    WriteError(e);
    return false;
  }
  return true;
}

template <typename Transport>
void BasicHttpSession<Transport>::StartInfer(const Route& route) {
  auto& request = parser_->get();
  std::string body;
  if (!TakeDecodedBody(&body)) return;
  if (shared_.routes->compress_responses()) {
    response_encoding_ = ChooseResponseEncoding(View(request[bhttp::field::accept_encoding]));
  }
  size_t json_size = 0;
  if (Status s = ParseInferHeaderLength(Field(request, kInferHeaderContentLength), body.size(),
                                        &json_size);
      !s.ok()) {
    return WriteError(s);
  }
  if (Status s = ParseVendorHeaderLength(View(request[bhttp::field::content_type]),
                                         shared_.routes->binary_content_type(), body.size(),
                                         &json_size);
      !s.ok()) {
    return WriteError(s);
  }
  ForwardedHeaders forwarded;
  if (Status s = CollectForwardedHeaders(&forwarded); !s.ok()) return WriteError(s);
  auto context = std::make_unique<InferContext>(this->shared_from_this(),
                                                transport_.get_executor(), std::move(body));
  context->set_forwarded_headers(std::move(forwarded));
  SetTraceContext(*context);
  context->set_execute_on_caller(shared_.execute_on_io_threads);
  ApplyKeyPriority(*context);
  if (Status s = InferContext::Submit(context, shared_.server, shared_.allocator,
                                      shared_.shared_memory, route, json_size);
      !s.ok()) {
    return WriteError(s);
  }
  inflight_ = context.release();  // the server's callbacks own it now
  // Answered already (a short model executed on this thread): nothing to
  // cancel, and arming the watch would cost an epoll_ctl per request.
  if (!inflight_->answered()) WatchForDisconnect();
}

template <typename Transport>
void BasicHttpSession<Transport>::StartBlocking(Route route) {
  // The guard keeps the io threads running until the answer is written.
  shared_.worker->Post([self = this->shared_from_this(), route = std::move(route),
                        body = std::move(parser_->get().body()),
                        guard = asio::make_work_guard(transport_.get_executor())] {
    StatusOr<EndpointResponse> answer = HandleEndpoint(self->shared_.server, route, body);
    asio::post(self->transport_.get_executor(), [self, answer = std::move(answer)]() mutable {
      self->WriteAnswer(std::move(answer));
    });
  });
}

template <typename Transport>
void BasicHttpSession<Transport>::WatchForDisconnect() {
  watching_ = true;
  socket().async_wait(asio::ip::tcp::socket::wait_read,
                      [self = this->shared_from_this()](error_code ec) { self->OnReadable(ec); });
}

template <typename Transport>
void BasicHttpSession<Transport>::OnReadable(error_code ec) {
  watching_ = false;
  if (ec || inflight_ == nullptr || closed_) return;
  // Readiness may be stale (the bytes that raised it were already read), so
  // peek: 0 is end of stream, EAGAIN means nothing happened.
  char byte;
  const ssize_t peeked = ::recv(socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  // Over TLS the bytes are records: a TLS 1.2 alert record (content type 21,
  // the close_notify that clients send before their FIN) is a hang-up too.
  // TLS 1.3 hides alerts as application data, which cannot be told from a
  // pipelined request without decrypting it (so there only the FIN is seen).
  const bool alert = kTls && peeked > 0 && byte == kTlsAlertRecord;
  if (peeked > 0 && !alert) return;  // the client pipelined its next request; it waits
  if (peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    return WatchForDisconnect();
  }
  // End of stream or a reset: nobody will read the answer.
  keep_alive_ = false;
  client_gone_ = true;
  inflight_->Cancel();
}

template <typename Transport>
void BasicHttpSession<Transport>::EndInflight() {
  inflight_ = nullptr;
  StopWatching();
}

template <typename Transport>
void BasicHttpSession<Transport>::StopWatching() {
  if (!watching_ || stream_.writing) return;
  error_code ignored;
  socket().cancel(ignored);  // only the watch is pending now
}

template <typename Transport>
void BasicHttpSession<Transport>::OnInferResponse(InferContext& context,
                                                  INFERD_InferenceResponse* response,
                                                  uint32_t flags) {
  if (context.reply() != InferContext::Reply::kInfer) {
    return OnGenerateResponse(context, response, flags);
  }
  if (response != nullptr) {
    const bool first = !context.responded;
    if (first) {
      context.responded = true;
      EndInflight();
    }
    if (first && !closed_) {
      WriteInferResponse(context, response);
    } else {
      // Nobody to send it to (/infer requests are single-response).
      DiscardServerError(INFERD_InferenceResponseDelete(response));
    }
  }
  if ((flags & INFERD_RESPONSE_COMPLETE_FINAL) != 0) {
    if (!context.responded) {
      context.responded = true;
      EndInflight();
      if (!closed_) WriteError(Status::Internal("the model returned no response"));
    }
    context.Unref();
  }
}

template <typename Transport>
void BasicHttpSession<Transport>::EndConnection() {
  if constexpr (kTls) {
    // close_notify first, so the client can tell the end of an answer (an
    // HTTP/1.0 stream ends with the connection) from a cut. Waiting for the
    // client's own close_notify is only politeness: a pooled keep-alive
    // client reads its socket only at its next request, so the wait is
    // short (it would otherwise hold the connection, and a stop, for long).
    tls_timer_->expires_after(std::min<std::chrono::milliseconds>(kCloseNotifyWait,
                                                                  shared_.tls_handshake_timeout));
    tls_timer_->async_wait([self = this->shared_from_this()](error_code ec) {
      if (!ec) self->Close();
    });
    transport_.async_shutdown([self = this->shared_from_this()](error_code) {
      self->tls_timer_->cancel();
      self->Close();
    });
  } else {
    error_code ignored;
    socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
    Close();
  }
}

template <typename Transport>
void BasicHttpSession<Transport>::Close() {
  if (closed_) return;
  closed_ = true;
  // Counted as gone from here: Stop and the exit answers wait for closed
  // sockets, not for requests still held by the server.
  if (registered_) {
    registered_ = false;
    shared_.registry.Remove(registration_);
  }
  deadline_.Stop();
  deadline_timer_.cancel();
  error_code ignored;
  socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket().close(ignored);
}

template class BasicHttpSession<PlainTransport>;
#if INFERD_HTTP_TLS
template class BasicHttpSession<TlsTransport>;
#endif

}  // namespace inferd::http
