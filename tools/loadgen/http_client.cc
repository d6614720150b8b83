// HttpClient: the connection pool, one Connection's write-read cycle, and the
// metadata GETs (blocking_http.h).
#include "loadgen/http_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <limits>
#include <optional>

#include "loadgen/blocking_http.h"
#include "loadgen/http_request.h"

namespace inferd::loadgen {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using boost::system::error_code;
using asio::ip::tcp;

// One keep-alive connection; runs one request at a time: (connect,) write the
// prepared request, read the response, hand itself back to the pool. A failure
// on a reused connection (the server closed it while idle) reconnects and
// retries once. Not thread-safe; owned by one request at a time.
class HttpClient::Connection {
 public:
  explicit Connection(HttpClient& client) : client_(client), socket_(client.io_) {}

  void Start(InferCallback done) {
    done_ = std::move(done);
    retried_ = false;
    if (socket_.is_open()) Write();
    else Connect();
  }

 private:
  void Connect() {
    asio::async_connect(socket_, client_.endpoints_, [this](error_code ec, const tcp::endpoint&) {
      if (ec) return Finish(false, "connect to " + client_.url_ + ": " + ec.message());
      socket_.set_option(tcp::no_delay(true), ec);
      requests_ = 0;
      Write();
    });
  }

  void Write() {
    asio::async_write(socket_, asio::buffer(client_.request_), [this](error_code ec, size_t) {
      if (ec) return Retry("write to " + client_.url_ + ": " + ec.message());
      Read();
    });
  }

  void Read() {
    parser_.emplace();
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    http::async_read(socket_, buffer_, *parser_, [this](error_code ec, size_t) {
      if (ec) return Retry("read from " + client_.url_ + ": " + ec.message());
      ++requests_;
      const auto& response = parser_->get();
      const bool keep_alive = response.keep_alive();
      if (response.result_int() == 200) {
        Finish(true, "", keep_alive);
      } else {
        Finish(false, "HTTP " + std::to_string(response.result_int()) + ": " +
                          response.body().substr(0, 300), keep_alive);
      }
    });
  }

  // A stale keep-alive connection fails its first write or read: reconnect once.
  void Retry(std::string error) {
    if (requests_ > 0 && !retried_) {
      retried_ = true;
      Close();
      return Connect();
    }
    Finish(false, std::move(error));
  }

  void Close() {
    error_code ignored;
    socket_.close(ignored);
    buffer_.clear();
  }

  void Finish(bool ok, std::string error, bool keep_alive = false) {
    if (!keep_alive) Close();
    InferCallback done = std::move(done_);
    client_.Release(this);  // may start the next request on this connection
    done(ok, error);
  }

  HttpClient& client_;
  tcp::socket socket_;
  boost::beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::string_body>> parser_;
  InferCallback done_;
  int64_t requests_ = 0;  // answered on the current socket
  bool retried_ = false;
};

HttpClient::HttpClient(const LoadgenOptions& options)
    : options_(options),
      url_("http://" + options.host + ":" + std::to_string(options.port)),
      work_(asio::make_work_guard(io_)) {
  for (int i = 0; i < options_.threads; ++i) threads_.emplace_back([this] { io_.run(); });
}

HttpClient::~HttpClient() {
  work_.reset();
  io_.stop();
  for (std::thread& thread : threads_) thread.join();
}

std::string HttpClient::Resolve() {
  if (!endpoints_.empty()) return "";
  error_code ec;
  tcp::resolver resolver(io_);
  endpoints_ = resolver.resolve(options_.host, std::to_string(options_.port), ec);
  if (ec) return "resolve " + options_.host + ": " + ec.message();
  return "";
}

std::string HttpClient::Get(const std::string& target, int* status, std::string* body) {
  // The pool's connections use the address resolved here.
  if (std::string error = Resolve(); !error.empty()) return error;
  HttpExchange exchange;
  exchange.target = target;
  return BlockingHttp(options_.host, options_.port, exchange, status, body);
}

std::string HttpClient::FetchModelInfo(ModelInfo* info) {
  int status = 0;
  std::string metadata, config;
  const std::string target = ModelTarget(options_.model, options_.model_version, "");
  std::string error = Get(target, &status, &metadata);
  if (!error.empty()) return error;
  if (status != 200) {
    return "GET " + url_ + target + ": HTTP " + std::to_string(status) + ": " + metadata;
  }
  // A server without the config endpoint still works: the metadata's -1s then tell.
  error = Get(ModelTarget(options_.model, options_.model_version, "config"), &status, &config);
  if (!error.empty() || status != 200) config.clear();
  return ParseHttpModelInfo(options_.model, metadata, config, info);
}

void HttpClient::PrepareRequest(const ModelInfo& info, const std::vector<GeneratedTensor>& inputs) {
  const std::string target = ModelTarget(options_.model, options_.model_version, "infer");
  request_ = InferHttpRequest(options_.host, target, inputs, options_.binary);
}

void HttpClient::AsyncInfer(InferCallback done) {
  Connection* connection = nullptr;
  {
    MutexLock lock(&mu_);
    if (!idle_.empty()) {
      connection = idle_.back();
      idle_.pop_back();
    } else if (connections_.size() < size_t(options_.max_connections) || !options_.open_loop()) {
      // Closed loop never has more requests in flight than the concurrency.
      connections_.push_back(std::make_unique<Connection>(*this));
      connection = connections_.back().get();
    } else {
      waiting_.push_back(std::move(done));
      return;
    }
  }
  connection->Start(std::move(done));
}

void HttpClient::Release(Connection* connection) {
  InferCallback next;
  {
    MutexLock lock(&mu_);
    if (waiting_.empty()) {
      idle_.push_back(connection);
      return;
    }
    next = std::move(waiting_.front());
    waiting_.pop_front();
  }
  connection->Start(std::move(next));
}

size_t HttpClient::connection_count() const {
  MutexLock lock(&mu_);
  return connections_.size();
}

std::unique_ptr<InferClient> MakeHttpClient(const LoadgenOptions& options) {
  return std::make_unique<HttpClient>(options);
}

}  // namespace inferd::loadgen
