// One HTTP/1.1 connection: reads requests one at a time (keep-alive; pipelined
// requests wait in the read buffer), routes them, answers the simple endpoints
// at once and submits infer requests to the server, and writes each response
// as one gather write; a generate_stream answer is a chunked stream of
// Server-Sent Events, each written whole, in order, later ones queueing while
// a write is under way. Everything runs on the connection's strand; the only
// entry points from other threads are Shutdown and the InferContext's posts.
#ifndef INFERD_FRONTENDS_HTTP_HTTP_SESSION_H_
#define INFERD_FRONTENDS_HTTP_HTTP_SESSION_H_

#include <rapidjson/stringbuffer.h>

#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/api_restrictions.h"
#include "common/blocking_worker.h"
#include "common/header_forward.h"
#include "http/response_head.h"
#include "http/compression.h"
#include "http/endpoints.h"
#include "http/http_errors.h"
#include "http/infer_context.h"
#include "http/route_map.h"
#include "http/router.h"
#include "http/session_registry.h"
#include "http/sse_event.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http {

// What every session of one HttpServer shares; outlives all of them.
struct SessionShared {
  INFERD_Server* server = nullptr;
  INFERD_ResponseAllocator* allocator = nullptr;
  SharedMemoryRegistry* shared_memory = nullptr;  // null: the extension is off
  BlockingWorker* worker = nullptr;  // runs model loads and unloads; null on the metrics port
  size_t max_body_bytes = 0;
  const RouteMap* routes = nullptr;  // what the paths mean; owned by the server
  // The headers infer requests forward as parameters; null: none. Owned by the server.
  const HeaderForwarder* header_forwarder = nullptr;
  ApiRestrictions restrictions;  // --http-restricted-api; empty: none
  SessionRegistry registry;
};

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  using Strand = InferContext::Strand;
  using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, Strand>;

  HttpSession(Socket socket, SessionShared& shared);
  ~HttpSession();
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  // Registers the session and starts reading; call once, from any thread.
  void Start();

  // From any thread: close now if idle (or `force`), else after the response
  // in progress, and accept no further request.
  void Shutdown(bool force);
  // From any thread, as the process exits: an infer request waiting for the
  // server is answered 503 with `why` (its late response, if any, is
  // dropped); then the connection closes.
  void AnswerAtExit(std::string why);

  // On the strand (posted by InferContext): a response or the FINAL flag for
  // `context`. Writes the first response (generate: as its endpoint answers);
  // drops the session's reference on `context` at FINAL.
  void OnInferResponse(InferContext& context, INFERD_InferenceResponse* response, uint32_t flags);

 private:
  void ReadRequest();
  void OnHeader(boost::system::error_code ec);
  void ReadBody();
  void OnBody(boost::system::error_code ec);
  void OnReadError(boost::system::error_code ec);
  void Dispatch();
  void StartInfer(const Route& route);
  // The request's headers that the forward pattern selects (none without one).
  Status CollectForwardedHeaders(ForwardedHeaders* out) const;
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
                 std::string_view content_type = kJsonContentType);
  // Where a failure becomes an HTTP answer: its status and {"error": ...}.
  void WriteError(const HttpError& error);
  void WriteAnswer(StatusOr<EndpointResponse> answer);
  void Send();
  void OnWrite(boost::system::error_code ec);
  void Close();
  bool KeepAlive() const { return keep_alive_ && !stopping_; }

  Socket socket_;
  SessionShared& shared_;
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

  bool busy_ = false;      // a request is being handled or its response written
  bool stopping_ = false;  // Shutdown was called
  bool closed_ = false;
  bool watching_ = false;  // a disconnect watch is pending on the socket

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
};

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_HTTP_SESSION_H_
