// BlockingHttp (blocking_http.h) on Boost.Beast's synchronous calls, with
// socket timeouts so that a server that never answers cannot hang the tools.
#include "loadgen/blocking_http.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <limits>

namespace inferd::loadgen {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using asio::ip::tcp;

std::string BlockingHttp(const std::string& host, uint16_t port, const HttpExchange& exchange,
                         int* status, std::string* body) {
  const std::string what = exchange.method + " http://" + host + ":" + std::to_string(port) +
                           exchange.target;
  asio::io_context io;
  boost::system::error_code ec;
  tcp::resolver resolver(io);
  const auto endpoints = resolver.resolve(host, std::to_string(port), ec);
  if (ec) return what + ": resolve " + host + ": " + ec.message();
  tcp::socket socket(io);
  asio::connect(socket, endpoints, ec);
  if (ec) return what + ": " + ec.message();
  const timeval timeout{exchange.timeout_secs, 0};
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  http::request<http::string_body> request(http::string_to_verb(exchange.method), exchange.target, 11);
  request.set(http::field::host, host);
  for (const auto& [name, value] : exchange.headers) request.set(name, value);
  if (!exchange.body.empty()) {
    request.set(http::field::content_type, "application/json");
    request.body() = exchange.body;
  }
  request.prepare_payload();
  http::write(socket, request, ec);
  boost::beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  if (!ec) http::read(socket, buffer, parser, ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) {
    return what + ": no answer within " + std::to_string(exchange.timeout_secs) + " s";
  }
  if (ec) return what + ": " + ec.message();
  *status = parser.get().result_int();
  *body = std::move(parser.get().body());
  return "";
}

}  // namespace inferd::loadgen
