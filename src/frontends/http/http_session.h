// One HTTP/1.1 connection: reads requests one at a time (keep-alive; pipelined
// requests wait in the read buffer), routes them, answers the simple endpoints
// at once and submits infer requests to the server, and writes each response
// as one gather write; a generate_stream answer is a chunked stream of
// Server-Sent Events, each written whole, in order, later ones queueing while
// a write is under way. Everything runs on the connection's strand; the only
// entry points from other threads are Shutdown and the InferContext's posts.
// Plain TCP or TLS (HTTPS): one implementation, templated on the transport.
#ifndef INFERD_FRONTENDS_HTTP_HTTP_SESSION_H_
#define INFERD_FRONTENDS_HTTP_HTTP_SESSION_H_

#include <rapidjson/stringbuffer.h>

#include <boost/asio/buffer.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <atomic>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/api_restrictions.h"
#include "common/auth/access_control.h"
#include "common/blocking_worker.h"
#include "common/header_forward.h"
#include "http/response_head.h"
#include "http/compression.h"
#include "http/endpoints.h"
#include "http/http_errors.h"
#include "http/http_limits.h"
#include "http/connection_deadline.h"
#include "http/infer_context.h"
#include "http/openai/exchange.h"
#include "http/openai/openai_error.h"
#include "http/openai/openai_metrics.h"
#include "http/route_map.h"
#include "http/router.h"
#include "http/session_registry.h"
#include "http/sse_event.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

// HTTPS lives in libinferd_https_frontend.so (https_module.h), which builds
// this file's .cc files again with INFERD_HTTP_TLS=1: the binary's copy has
// no TLS transport and links no OpenSSL.
#if INFERD_HTTP_TLS
#include <boost/asio/ssl/stream.hpp>
#endif

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace inferd::http {

// What every session of one HttpServer shares; outlives all of them.
struct SessionShared {
  INFERD_Server* server = nullptr;
  INFERD_ResponseAllocator* allocator = nullptr;
  SharedMemoryRegistry* shared_memory = nullptr;  // null: the extension is off
  BlockingWorker* worker = nullptr;  // runs model loads and unloads; null on the metrics port
  HttpLimits limits;
  const RouteMap* routes = nullptr;  // what the paths mean; owned by the server
  // The headers infer requests forward as parameters; null: none. Owned by the server.
  const HeaderForwarder* header_forwarder = nullptr;
  ApiRestrictions restrictions;  // --http-restricted-api; empty: none
  // The API keys (--auth-file); null: no key needed. Owned by main.
  const auth::AccessControl* access = nullptr;
  // The OpenAI API's metrics: recorded on the HTTP port, rendered on the
  // metrics port's /metrics; null: none. Owned by main.
  openai::OpenAiMetrics* openai_metrics = nullptr;
  // How long an OpenAI API request may take (--openai-timeout-secs); 0: no limit.
  std::chrono::seconds openai_timeout{0};
  // Load and unload are served (explicit model control): the dashboard shows its buttons.
  bool repository_api = false;
  // /infer may execute a short model on the I/O thread (INFERD_InferenceRequestSetExecuteOnCaller):
  // only with two I/O threads or more, so that one held by an execution that
  // turns out long never stalls every connection.
  bool execute_on_io_threads = false;
  SessionRegistry registry;
  // TLS (--http-use-ssl): the server's context is HttpServer's
  // (tls_context.h, made again when its files change); false: plain HTTP.
  bool tls = false;
  // How long a TLS client may take to finish its handshake before the
  // connection is closed, so idle connections cannot pile up.
  std::chrono::milliseconds tls_handshake_timeout{10000};
  // The first connection each timeout closes is logged (not each: a flood of
  // slow clients must not flood the log), indexed by TimedPhase.
  std::atomic<bool> timeout_logged[3] = {false, false, false};
};

// A connection as the server, its registry and InferContext see it, whatever
// carries its bytes (BasicHttpSession below).
class HttpSession {
 public:
  using Strand = InferContext::Strand;
  using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, Strand>;

  virtual ~HttpSession() = default;

  // Registers the session and starts reading (over TLS: handshakes first);
  // call once, from any thread.
  virtual void Start() = 0;

  // From any thread: close now if idle (or `force`), else after the response
  // in progress, and accept no further request.
  virtual void Shutdown(bool force) = 0;
  // From any thread, as the process exits: an infer request waiting for the
  // server is answered 503 with `why` (its late response, if any, is
  // dropped); then the connection closes.
  virtual void AnswerAtExit(std::string why) = 0;

  // On the strand (posted by InferContext): a response or the FINAL flag for
  // `context`. Writes the first response (generate: as its endpoint answers);
  // drops the session's reference on `context` at FINAL.
  virtual void OnInferResponse(InferContext& context, INFERD_InferenceResponse* response,
                               uint32_t flags) = 0;
};

// The two transports: plain TCP, and TLS over it (--http-use-ssl; in the
// HTTPS module only).
using PlainTransport = HttpSession::Socket;
#if INFERD_HTTP_TLS
using TlsTransport = boost::asio::ssl::stream<HttpSession::Socket>;
#endif

// One implementation for both transports, so plain HTTP pays nothing for TLS:
// reads and writes go to `Transport`, socket-level work (the disconnect
// watch, shutdown, close) to the TCP socket beneath it.
template <typename Transport>
class BasicHttpSession final : public HttpSession,
                               public std::enable_shared_from_this<BasicHttpSession<Transport>> {
 public:
  static constexpr bool kTls = !std::is_same_v<Transport, PlainTransport>;
  static constexpr size_t kMinReadRoom = 4096;        // bytes a read may fill at least
  static constexpr size_t kMaxReadRoom = 64 * 1024;   // Beast reads at most this much at once

  BasicHttpSession(Transport transport, SessionShared& shared);
  ~BasicHttpSession() override;
  BasicHttpSession(const BasicHttpSession&) = delete;
  BasicHttpSession& operator=(const BasicHttpSession&) = delete;

  void Start() override;
  void Shutdown(bool force) override;
  void AnswerAtExit(std::string why) override;
  void OnInferResponse(InferContext& context, INFERD_InferenceResponse* response,
                       uint32_t flags) override;

 private:
  // Over TLS: the handshake, bounded by SessionShared::tls_handshake_timeout;
  // then (and at once over plain TCP) the first request.
  void Begin();
  Socket& socket() { return boost::beast::get_lowest_layer(transport_); }

  void ReadRequest();
  void OnHeader(boost::system::error_code ec);
  void ReadBody();
  void OnBody(boost::system::error_code ec);
  void OnReadError(boost::system::error_code ec);
  void Dispatch();
  // The request's body, its Content-Encoding undone; false when that fails
  // (the error is answered).
  bool TakeDecodedBody(std::string* body);
  void StartInfer(const Route& route);
  // The request's headers that the forward pattern selects (none without one).
  Status CollectForwardedHeaders(ForwardedHeaders* out) const;
  // Hands the request's traceparent and tracestate headers, if any, to `context`.
  void SetTraceContext(InferContext& context) const;
  // With --auth-file: the priority of the key's requests that name none
  // (its "priority"), for infer, generate and the OpenAI routes alike.
  void ApplyKeyPriority(InferContext& context) const {
    if (access_.key != nullptr && access_.key->priority) {
      context.set_default_priority(*access_.key->priority);
    }
  }
  // Answers `route` on the BlockingWorker (its server call blocks), then
  // writes the answer on the strand.
  void StartBlocking(Route route);

  // The generate extension (http_session_generate.cc).
  void StartGenerate(const Route& route);
  void OnGenerateResponse(InferContext& context, INFERD_InferenceResponse* response,
                          uint32_t flags);
  // /generate: keeps the first response until FINAL shows it was the only one.
  void CollectGenerateResponse(InferContext& context, INFERD_InferenceResponse* response);
  void AnswerGenerate(const InferContext& context);
  // /generate_stream: one event per response.
  void StreamResponse(INFERD_InferenceResponse* response, bool final);
  void WriteStream();
  void OnStreamWrite(boost::system::error_code ec);
  void EndStream(boost::system::error_code ec);

  // The OpenAI API (http_session_openai.cc): a request's choices are
  // submitted one after another as generate requests; streamed as SSE
  // chunks ending with [DONE], or answered once all have ended.
  void StartOpenAi(const Route& route);
  void AnswerOpenAiModels(const Route& route);
  void SubmitOpenAiChoice();
  void OnOpenAiResponse(InferContext& context, INFERD_InferenceResponse* response,
                        uint32_t flags);
  void TakeOpenAiResponse(InferContext& context, INFERD_InferenceResponse* response);
  void EndOpenAiChoice();
  void FinishOpenAi();
  // Ends the request with `error`: an HTTP error before the stream began,
  // else an error event and [DONE].
  void FailOpenAi(const openai::ApiError& error);
  // The stream's last event, "data: [DONE]", and its end.
  void EndOpenAiStream();
  // A new SSE event at the end of the stream's queue; SendOpenAiEvent ends
  // it and writes the queue unless a write is under way.
  SseEvent& NewOpenAiEvent();
  void SendOpenAiEvent(SseEvent& event);
  void RecordOpenAi(std::string_view override_reason);
  // --openai-timeout-secs: request `serial` has run out of time.
  void OnOpenAiTimeout(uint64_t serial);
  // The request ends: forget it and its timer.
  void DropOpenAi();
  void WriteOpenAiError(const openai::ApiError& error);

  // While an infer request is queued (a generate request: until its FINAL
  // response), notices the client hanging up.
  void WatchForDisconnect();
  void OnReadable(boost::system::error_code ec);
  // The request in flight has its response (or is abandoned).
  void EndInflight();
  // Cancels the disconnect watch, unless a stream write is under way (a
  // socket's cancel would abort that too): the stream's end cancels it then.
  void StopWatching();

  void WriteInferResponse(InferContext& context, INFERD_InferenceResponse* response);
  void WriteBody(unsigned status, std::string body,
                 std::string_view content_type = kJsonContentType,
                 std::string_view extra_headers = {}, uint64_t retry_after_s = 0);
  // Where a failure becomes an HTTP answer: its status and {"error": ...}.
  void WriteError(const HttpError& error);
  void WriteAnswer(StatusOr<EndpointResponse> answer);
  void Send();
  void OnWrite(boost::system::error_code ec);
  // After the last answer of a connection: over TLS, close_notify, then close.
  void EndConnection();
  void Close();

  // Limits (http_limits.h). `phase` is now under way and must end within its
  // timeout (zero: no deadline); past it the connection closes.
  void SetDeadline(TimedPhase phase);
  void ClearDeadline() { deadline_.Clear(); }
  void WaitForDeadline();
  void OnDeadline(boost::system::error_code ec);
  void TimedOut();
  // The answer to a request past a size limit (body: 413, head: 431).
  HttpError SizeLimitError(boost::system::error_code ec) const;

  bool KeepAlive() const { return keep_alive_ && !stopping_; }

  Transport transport_;
  SessionShared& shared_;
  // Closes a connection whose TLS handshake (or closing exchange) takes too
  // long; nothing over plain TCP.
  struct NoTimer {};
  using TlsTimer = boost::asio::basic_waitable_timer<
      std::chrono::steady_clock, boost::asio::wait_traits<std::chrono::steady_clock>, Strand>;
  [[no_unique_address]] std::conditional_t<kTls, std::optional<TlsTimer>, NoTimer>
      tls_timer_;
  SessionRegistry::Handle registration_;
  bool registered_ = false;

  boost::beast::flat_buffer buffer_;  // bytes read and not yet parsed
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;

  // The request being handled.
  unsigned http_version_ = 11;
  bool keep_alive_ = true;
  Encoding response_encoding_ = Encoding::kIdentity;
  std::string content_type_;  // a binary response's vendor Content-Type (RouteMap)
  InferContext* inflight_ = nullptr;  // queued in the server, no response yet
  auth::AccessDecision access_;       // the request's key check (with --auth-file)

  bool busy_ = false;      // a request is being handled or its response written
  bool stopping_ = false;  // Shutdown was called
  bool closed_ = false;
  bool watching_ = false;  // a disconnect watch is pending on the socket
  // Over TLS: the handshake ended, so a timer expiry already queued when it
  // was cancelled must not close the connection.
  bool handshake_done_ = false;

  // The response being written; reused from request to request.
  std::string head_;
  std::string body_;
  rapidjson::StringBuffer json_;
  std::vector<std::string_view> binary_;
  std::vector<boost::asio::const_buffer> buffers_;
  INFERD_InferenceResponse* response_ = nullptr;  // owns the binary outputs being written

  // The generate answer in progress. /generate renders its response into
  // json_ and keeps its error here.
  Status generate_status_;
  // A /generate_stream answer.
  struct Stream {
    BodyFraming framing = BodyFraming::kChunked;
    bool started = false;  // its head was written
    bool final = false;    // FINAL arrived: no event follows
    bool ended = false;    // its last bytes are written or being written
    bool writing = false;  // a write is under way
    size_t events_writing = 0;   // events[0, events_writing) are being written
    std::deque<SseEvent> events;  // queued and being written, in order
  };
  Stream stream_;

  // The OpenAI request in progress (null: none).
  std::unique_ptr<openai::Exchange> openai_;
  Route openai_route_;              // its model, as the generate requests name it
  openai::ApiError openai_error_;   // the first failure of a choice; ends the request
  bool openai_first_chunk_ = true;  // the current choice has sent no chunk yet
  bool openai_errors_ = false;      // errors of this request in OpenAI's shape
  bool client_gone_ = false;        // the disconnect watch saw the client hang up
  uint64_t openai_serial_ = 0;      // which request the timer below is for

  // The current phase's deadline and the timer that enforces it.
  ConnectionDeadline deadline_;
  TimedPhase phase_ = TimedPhase::kHead;  // the phase the deadline bounds
  boost::asio::basic_waitable_timer<std::chrono::steady_clock,
                                    boost::asio::wait_traits<std::chrono::steady_clock>, Strand>
      deadline_timer_;
  // Bounds an OpenAI API request (SessionShared::openai_timeout).
  boost::asio::basic_waitable_timer<std::chrono::steady_clock,
                                    boost::asio::wait_traits<std::chrono::steady_clock>, Strand>
      openai_timer_;
};

extern template class BasicHttpSession<PlainTransport>;
#if INFERD_HTTP_TLS
extern template class BasicHttpSession<TlsTransport>;
#endif

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_HTTP_SESSION_H_
