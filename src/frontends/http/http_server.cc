// The HTTP listener: acceptor, io_context threads, graceful stop.
#include "http/http_server.h"

#include <spdlog/spdlog.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/header_forward.h"
#include "common/output_allocator.h"
#include "http/http_session.h"
#include "http/idle_look.h"
#include "http/io_thread_busy.h"
#include "http/https_module.h"
#if INFERD_HTTP_TLS
#include "http/tls_context.h"
#endif

namespace inferd::http {
namespace asio = boost::asio;
using boost::system::error_code;
using tcp = asio::ip::tcp;
using Strand = HttpSession::Strand;

namespace {

// How long Stop lets busy connections finish writing before closing them.
constexpr std::chrono::seconds kStopGrace{10};
// How long the exit answers may take to write before the process exits anyway.
constexpr std::chrono::milliseconds kExitFlushBound{1000};
// Pause after a failed accept (e.g. out of file descriptors) before retrying.
constexpr std::chrono::milliseconds kAcceptRetryDelay{50};

// The whole answer to a connection past --http-max-connections.
std::string ConnectionRefusal(size_t limit) {
  const std::string body = "{\"error\":\"the server has " + std::to_string(limit) +
                           " connections open, the most --http-max-connections allows; retry "
                           "later\"}";
  return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
         "Connection: close\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

// How many I/O threads serve connections: --http-thread-count, or one per core
// (at least two, so a model executing on one leaves the other answering).
int IoThreadCount(const HttpOptions& options) {
  if (options.thread_count > 0) return options.thread_count;
  return std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
}

// One io_context per I/O thread. Each connection lives on one of them, so a
// request is read, executed (a short model runs right there) and answered by
// one thread, which sleeps in its own epoll_wait between requests: no thread
// wakes another to hand over a handler, as threads sharing one io_context do
// (a futex wake and an epoll round on a second thread per request). The
// acceptor has a context and thread of its own, so that an I/O thread held by
// a long execution does not hold up new connections (io_thread_busy.h).
std::vector<std::unique_ptr<asio::io_context>> MakeIoContexts(int count) {
  std::vector<std::unique_ptr<asio::io_context>> contexts;
  contexts.reserve(count);
  for (int i = 0; i < count; ++i) contexts.push_back(std::make_unique<asio::io_context>());
  return contexts;
}

// Runs `io` until it stops. After each burst of handlers the thread looks for
// more work for IdleLookPolicy::kWindow before sleeping, while looking has been
// paying off (see idle_look.h). Each look yields the core first, so a runnable
// thread (the client, an instance) is not kept waiting.
void RunIoThread(asio::io_context& io) {
  IdleLookPolicy policy;
  while (!io.stopped()) {
    if (io.poll() > 0) continue;
    const auto idle_since = std::chrono::steady_clock::now();
    if (policy.ShouldLook()) {
      const auto until = idle_since + IdleLookPolicy::kWindow;
      size_t ran = 0;
      while (ran == 0 && !io.stopped() && std::chrono::steady_clock::now() < until) {
        sched_yield();
        ran = io.poll();
      }
      policy.OnLook(ran > 0);
      if (ran > 0 || io.stopped()) continue;
      io.run_one();
      continue;
    }
    io.run_one();
    policy.OnSleep(std::chrono::steady_clock::now() - idle_since);
  }
}

}  // namespace

class HttpServer::Impl {
 public:
  Impl(INFERD_Server* server, HttpOptions options)
      : options_(std::move(options)),
        contexts_(MakeIoContexts(IoThreadCount(options_))),
        busy_(new std::atomic<bool>[contexts_.size()]()),
        acceptor_strand_(asio::make_strand(acceptor_context_)),
        acceptor_(acceptor_strand_),
        retry_timer_(acceptor_strand_) {
    for (auto& context : contexts_) work_.emplace_back(context->get_executor());
    work_.emplace_back(acceptor_context_.get_executor());
    shared_.server = server;
    shared_.restrictions = options_.restrictions;
    shared_.access = options_.access;
    shared_.limits = options_.limits;
    shared_.openai_metrics = options_.openai_metrics;
    shared_.openai_timeout = options_.openai_timeout;
    shared_.repository_api = options_.repository_api;
    if (options_.routes == nullptr) {
      if (options_.metrics_only) {
        options_.routes = std::make_shared<MetricsRouteMap>();
      } else {
        options_.routes = std::make_shared<KServeRouteMap>(options_.openai_api, options_.dashboard);
      }
    }
    shared_.routes = options_.routes.get();
    shared_.shared_memory = options_.shared_memory;
    if (!options_.metrics_only) {
      worker_ = std::make_unique<BlockingWorker>();
      shared_.worker = worker_.get();
    }
  }

  ~Impl() { Stop(); }

  void ReloadFiles() {
#if INFERD_HTTP_TLS
    if (tls_ != nullptr) tls_->ReloadSoon();
#endif
  }

  Status Start() {
    RETURN_IF_ERROR(PrepareShared());
    RETURN_IF_ERROR(Listen());
    started_ = true;
    shared_.execute_on_io_threads = contexts_.size() >= 2;
    Accept();
    threads_.reserve(contexts_.size() + 1);
    for (size_t i = 0; i < contexts_.size(); ++i) {
      threads_.emplace_back([&io = *contexts_[i], busy = &busy_[i]] {
        pthread_setname_np(pthread_self(), "inferd-http");  // for per-thread CPU figures
        IoThreadBusy::BindThread(busy);
        RunIoThread(io);
      });
    }
    threads_.emplace_back([this] {
      pthread_setname_np(pthread_self(), "inferd-http-acc");
      acceptor_context_.run();
    });
    return Status::Ok();
  }

  // What the sessions share that Start makes: the response allocator, the
  // header forwarder, the TLS context.
  Status PrepareShared() {
    if (Status s = allocator_.Init(); !s.ok()) return s.WithPrefix("response allocator: ");
    shared_.allocator = allocator_.get();
    if (!options_.header_forward_pattern.empty()) {
      ASSIGN_OR_RETURN(header_forwarder_,
                       HeaderForwarder::Create(options_.header_forward_pattern,
                                               "--http-header-forward-pattern"));
      shared_.header_forwarder = header_forwarder_.get();
    }
    if (options_.tls.enabled()) {
#if INFERD_HTTP_TLS
      ASSIGN_OR_RETURN(tls_, ReloadingTlsContext::Create(options_.tls));
      shared_.tls = true;
#else
      return Status::Internal(std::string("HTTPS is served by ") + kHttpsModuleFile +
                              ", not by the binary's HTTP frontend");
#endif
    }
    return Status::Ok();
  }

  // Opens, binds and listens on the acceptor; sets port_. A wildcard address
  // (Triton's default 0.0.0.0, or ::) listens dual-stack, on IPv6 and IPv4,
  // as gRPC's listener does: a client whose `localhost` resolves to ::1 (the
  // Debian installer's /etc/hosts) reaches the server too. Where the host has
  // no IPv6 it listens on IPv4 alone; any other address only on itself.
  Status Listen() {
    error_code ec;
    std::string text = options_.address;
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
      text = text.substr(1, text.size() - 2);
    }
    const asio::ip::address address = asio::ip::make_address(text, ec);
    if (ec) {
      return Status::InvalidArg("invalid address '" + options_.address + "': " + ec.message());
    }
    if (!address.is_unspecified()) return ListenOn(tcp::endpoint(address, options_.port), false);
    bool no_ipv6 = false;
    Status dual = ListenOn(tcp::endpoint(tcp::v6(), options_.port), true, &no_ipv6);
    if (!no_ipv6) return dual;
    return ListenOn(tcp::endpoint(tcp::v4(), options_.port), false);
  }

  // Listens on `endpoint`; `dual_stack` clears IPV6_V6ONLY. Sets *no_ipv6
  // (and leaves the acceptor closed) when the host cannot open or bind IPv6.
  Status ListenOn(const tcp::endpoint& endpoint, bool dual_stack, bool* no_ipv6 = nullptr) {
    error_code ec;
    const auto failed = [&](const char* step) {
      if (no_ipv6 != nullptr && (ec == asio::error::address_family_not_supported ||
                                 ec == boost::system::errc::address_not_available)) {
        *no_ipv6 = true;
      }
      error_code ignored;
      acceptor_.close(ignored);
      return Status::Unavailable(std::string(step) + ": " + ec.message());
    };
    if (acceptor_.open(endpoint.protocol(), ec)) return failed("socket");
    if (dual_stack && acceptor_.set_option(asio::ip::v6_only(false), ec)) {
      return failed("IPV6_V6ONLY");
    }
    if (acceptor_.set_option(asio::socket_base::reuse_address(true), ec)) {
      return failed("SO_REUSEADDR");
    }
    if (options_.reuse_port) {
      const int on = 1;
      if (::setsockopt(acceptor_.native_handle(), SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)) != 0) {
        ec.assign(errno, boost::system::system_category());
        return failed("SO_REUSEPORT");
      }
    }
    if (acceptor_.bind(endpoint, ec)) {
      if (ec == asio::error::address_in_use && !options_.reuse_port) {
        return Status::Unavailable("bind: " + ec.message() +
                                   " (to share the port, start every server on it with "
                                   "--reuse-http-port=true)");
      }
      return failed("bind");
    }
    if (acceptor_.listen(asio::socket_base::max_listen_connections, ec)) return failed("listen");
    port_ = acceptor_.local_endpoint(ec).port();
    return Status::Ok();
  }

  uint16_t port() const { return port_; }

  void Stop() {
    if (stopped_) return;
    stopped_ = true;
    stopping_.store(true);
    if (started_) {
      asio::post(acceptor_strand_, [this] {
        error_code ignored;
        acceptor_.close(ignored);
        retry_timer_.cancel();
      });
      shared_.registry.ForEach([](HttpSession& session) { session.Shutdown(false); });
      if (!shared_.registry.WaitUntilEmpty(kStopGrace)) {
        SPDLOG_WARN("HTTP: closing connections still busy {}s after stop", kStopGrace.count());
        shared_.registry.ForEach([](HttpSession& session) { session.Shutdown(true); });
      }
    }
    // The threads return once every session is gone and every request queued
    // in the server has handed back its InferContext (each holds a work guard).
    work_.clear();
    for (std::thread& thread : threads_) thread.join();
    threads_.clear();
    if (worker_) worker_->Stop();  // idle: each task held the io threads until it was answered
  }

  void AnswerInFlightAtExit(const std::string& why) {
    shared_.registry.ForEach([&why](HttpSession& session) { session.AnswerAtExit(why); });
    // Each session closes once its answer is written; the process exits next.
    if (!shared_.registry.WaitUntilEmpty(kExitFlushBound)) {
      SPDLOG_WARN("HTTP: connections still open {}ms after the exit answers",
                  kExitFlushBound.count());
    }
  }

 private:
  void Accept() {
    acceptor_.async_accept(asio::make_strand(NextContext()),
                           [this](error_code ec, HttpSession::Socket socket) {
                             OnAccept(ec, std::move(socket));
                           });
  }

  void OnAccept(error_code ec, HttpSession::Socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
    if (ec) {
      SPDLOG_WARN("HTTP: accept failed: {}", ec.message());
      retry_timer_.expires_after(kAcceptRetryDelay);
      retry_timer_.async_wait([this](error_code wait_ec) {
        if (!wait_ec && acceptor_.is_open()) Accept();
      });
      return;
    }
    if (stopping_.load()) return;  // the socket closes as it goes out of scope
    if (AtConnectionLimit()) {
      RefuseConnection(socket);
      return Accept();
    }
    socket.set_option(tcp::no_delay(true), ec);
#if INFERD_HTTP_TLS
    if (tls_ != nullptr) {
      TlsTransport transport(std::move(socket), *tls_->current());
      std::make_shared<BasicHttpSession<TlsTransport>>(std::move(transport), shared_)->Start();
      return Accept();
    }
#endif
    std::make_shared<BasicHttpSession<PlainTransport>>(std::move(socket), shared_)->Start();
    Accept();
  }

  // The I/O thread a new connection goes to: the next in turn that is not
  // inside a call that may execute a model (the next in turn if all are).
  asio::io_context& NextContext() {
    const size_t count = contexts_.size();
    for (size_t tried = 0; tried < count; ++tried) {
      const size_t i = (next_context_ + tried) % count;
      if (!busy_[i].load(std::memory_order_relaxed)) {
        next_context_ = i + 1;
        return *contexts_[i];
      }
    }
    return *contexts_[next_context_++ % count];
  }

  bool AtConnectionLimit() const {
    const size_t limit = options_.limits.max_connections;
    return limit > 0 && shared_.registry.size() >= limit;
  }

  // Answers a connection past --http-max-connections with 503 and closes it,
  // without a session: a new socket's send buffer takes the few bytes at once.
  // (Over HTTPS it is closed without an answer.)
  void RefuseConnection(HttpSession::Socket& socket) {
    if (!refusal_logged_) {
      refusal_logged_ = true;
      SPDLOG_WARN("HTTP: refusing connections past --http-max-connections={} with 503 (logged "
                  "once)",
                  options_.limits.max_connections);
    }
    const int fd = socket.native_handle();
    // Over TLS there is no session to carry an HTTP answer: the close alone says it.
    if (!shared_.tls) {
      ::send(fd, refusal_.data(), refusal_.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    ::shutdown(fd, SHUT_WR);
    // What the client already sent is read away, so the close sends FIN, not
    // a reset that could destroy the 503 before the client reads it (a
    // bounded read: a client that keeps sending gets its reset).
    char drain[4096];
    for (int i = 0; i < 16 && ::recv(fd, drain, sizeof drain, MSG_DONTWAIT) > 0; ++i) {
    }
    error_code ignored;
    socket.close(ignored);
  }

  // Constant after construction.
  HttpOptions options_;
  OutputAllocator<InferContext> allocator_;  // created by Start
  std::unique_ptr<const HeaderForwarder> header_forwarder_;  // created by Start; null: none
#if INFERD_HTTP_TLS
  std::unique_ptr<ReloadingTlsContext> tls_;  // created by Start; null: plain HTTP
#endif
  std::vector<std::unique_ptr<asio::io_context>> contexts_;  // one per I/O thread
  std::unique_ptr<std::atomic<bool>[]> busy_;  // one per I/O thread: io_thread_busy.h
  asio::io_context acceptor_context_{1};       // the acceptor's own thread
  // Keep the threads running until Stop (the acceptor's last); each
  // InferContext holds one more.
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::unique_ptr<BlockingWorker> worker_;  // model loads and unloads
  SessionShared shared_;
  // Used on acceptor_strand_ only (and by Start before the threads run).
  Strand acceptor_strand_;
  asio::basic_socket_acceptor<tcp, Strand> acceptor_;
  asio::basic_waitable_timer<std::chrono::steady_clock,
                             asio::wait_traits<std::chrono::steady_clock>, Strand>
      retry_timer_;
  // Controlling thread only.
  std::vector<std::thread> threads_;
  uint16_t port_ = 0;
  bool started_ = false;
  bool stopped_ = false;
  std::atomic<bool> stopping_{false};  // read by the acceptor
  // The 503 for connections past the limit.
  const std::string refusal_ = ConnectionRefusal(options_.limits.max_connections);
  bool refusal_logged_ = false;  // acceptor strand only
  size_t next_context_ = 0;      // acceptor strand only
};

HttpServer::HttpServer(INFERD_Server* server, HttpOptions options)
    : impl_(std::make_unique<Impl>(server, std::move(options))) {}

HttpServer::~HttpServer() = default;

Status HttpServer::Start() { return impl_->Start(); }

uint16_t HttpServer::port() const { return impl_->port(); }

void HttpServer::Stop() { impl_->Stop(); }

void HttpServer::AnswerInFlightAtExit(const std::string& why) { impl_->AnswerInFlightAtExit(why); }

void HttpServer::ReloadFiles() { impl_->ReloadFiles(); }

}  // namespace inferd::http
