// The HTTP/1.1 client of the load generator (Boost.Beast on Asio): a pool of
// keep-alive connections, one per request in flight, grown on demand up to
// a cap (the concurrency in closed-loop mode, --max-connections in open-loop
// mode; requests beyond it wait for a free connection). Every request writes
// the same prepared bytes. No thread per request: --threads I/O threads run
// all connections. Thread-safe.
#ifndef INFERD_TOOLS_LOADGEN_HTTP_CLIENT_H_
#define INFERD_TOOLS_LOADGEN_HTTP_CLIENT_H_

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "inferd/base/mutex.h"
#include "inferd/base/thread_annotations.h"
#include "loadgen/infer_client.h"

namespace inferd::loadgen {

class HttpClient final : public InferClient {
 public:
  explicit HttpClient(const LoadgenOptions& options);
  ~HttpClient() override;  // closes connections; requests still in flight never complete
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  std::string FetchModelInfo(ModelInfo* info) override;
  void PrepareRequest(const ModelInfo& info, const std::vector<GeneratedTensor>& inputs) override;
  void AsyncInfer(InferCallback done) override EXCLUDES(mu_);
  size_t connection_count() const override EXCLUDES(mu_);

  // GET `target` on a connection of its own, blocking up to 10 s. Returns ""
  // with *status and *body set, or an error naming the URL.
  std::string Get(const std::string& target, int* status, std::string* body);

 private:
  class Connection;
  // Hands `connection` the next waiting request, or puts it back in the pool.
  void Release(Connection* connection) EXCLUDES(mu_);
  // Resolves host:port once; returns "" or an error naming them.
  std::string Resolve();

  // Constant after construction.
  const LoadgenOptions options_;
  std::string url_;                 // http://host:port, for messages
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::vector<std::thread> threads_;
  // Constant after FetchModelInfo / PrepareRequest.
  boost::asio::ip::tcp::resolver::results_type endpoints_;
  std::string request_;             // the complete HTTP request, written by every connection

  mutable Mutex mu_;
  std::vector<std::unique_ptr<Connection>> connections_ GUARDED_BY(mu_);  // never shrinks
  std::vector<Connection*> idle_ GUARDED_BY(mu_);       // open or closed, no request
  std::deque<InferCallback> waiting_ GUARDED_BY(mu_);   // open loop: no connection free
};

}  // namespace inferd::loadgen

#endif  // INFERD_TOOLS_LOADGEN_HTTP_CLIENT_H_
