// One blocking HTTP/1.1 exchange on a connection of its own: the metadata
// GETs of the load generator and the repository calls of inferd tune, which
// are few and may take long (a model load), so they stay off the pool.
#ifndef INFERD_TOOLS_LOADGEN_BLOCKING_HTTP_H_
#define INFERD_TOOLS_LOADGEN_BLOCKING_HTTP_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace inferd::loadgen {

struct HttpExchange {
  std::string method = "GET";  // GET or POST
  std::string target;          // "/v2/models/m"
  std::string body;            // sent as application/json when not empty
  std::vector<std::pair<std::string, std::string>> headers;
  int timeout_secs = 10;       // for the connect, the write and the answer each
};

// Sends `exchange` to host:port and waits for the answer. Returns "" with
// *status and *body set, or an error naming the method and URL (connection
// refused, timed out, ...).
std::string BlockingHttp(const std::string& host, uint16_t port, const HttpExchange& exchange,
                         int* status, std::string* body);

}  // namespace inferd::loadgen

#endif  // INFERD_TOOLS_LOADGEN_BLOCKING_HTTP_H_
