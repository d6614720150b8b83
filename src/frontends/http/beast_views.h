// Beast's strings as std::string_view, and bytes as an Asio buffer: the
// conversions the HTTP session's files all make.
#ifndef INFERD_FRONTENDS_HTTP_BEAST_VIEWS_H_
#define INFERD_FRONTENDS_HTTP_BEAST_VIEWS_H_

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/string.hpp>

#include <string_view>

namespace inferd::http {

inline std::string_view View(boost::beast::string_view text) { return {text.data(), text.size()}; }

inline boost::asio::const_buffer Buffer(std::string_view bytes) {
  return {bytes.data(), bytes.size()};
}

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_BEAST_VIEWS_H_
