// Fuzz target: raw bytes from a socket, as the HTTP frontend meets them.
// Boost.Beast parses the request (bounded as the server bounds it); our code
// then routes its target and, for an inference, reads the binary-extension
// header and parses the body exactly as a session does.
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "http/binary_section.h"
#include "http/infer_request_parser.h"
#include "http/router.h"

namespace http = boost::beast::http;
using inferd::http::Method;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  http::request_parser<http::string_body> parser;
  parser.body_limit(1 << 20);
  parser.header_limit(16 * 1024);
  boost::beast::error_code ec;
  parser.put(boost::asio::buffer(data, size), ec);
  if (!ec && !parser.is_done()) parser.put_eof(ec);
  if (ec || !parser.is_done()) return 0;
  auto& request = parser.get();
  const Method method = request.method() == http::verb::get    ? Method::kGet
                        : request.method() == http::verb::post ? Method::kPost
                                                               : Method::kOther;
  inferd::http::Route route;
  const auto target = request.target();
  (void)inferd::http::MatchRoute(method, std::string_view(target.data(), target.size()), &route);

  std::string body = std::move(request.body());
  size_t json_size = body.size();
  const auto header = request.find("Inference-Header-Content-Length");
  if (header != request.end()) {
    const auto value = header->value();
    if (!inferd::http::ParseInferHeaderLength(std::string_view(value.data(), value.size()),
                                              body.size(), &json_size)
             .ok()) {
      return 0;
    }
  }
  inferd::http::ParsedInferRequest parsed;
  (void)inferd::http::ParseInferRequest(body.data(), body.size(), json_size, &parsed);
  return 0;
}
