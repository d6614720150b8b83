// Framing one Server-Sent Event.
#include "http/sse_event.h"

#include <charconv>
#include <cstring>

namespace inferd::http {
namespace {

constexpr std::string_view kDataPrefix = "data: ";
constexpr std::string_view kEventEnd = "\n\n";
constexpr std::string_view kCrlf = "\r\n";

void Append(std::string_view bytes, rapidjson::StringBuffer* buffer) {
  std::memcpy(buffer->Push(bytes.size()), bytes.data(), bytes.size());
}

}  // namespace

void SseEvent::Restart() {
  text_.Clear();
  Append(kDataPrefix, &text_);
  chunk_header_size_ = 0;
}

void SseEvent::Finish(bool chunked) {
  Append(kEventEnd, &text_);
  if (!chunked) return;
  const auto [end, ec] =
      std::to_chars(chunk_header_, chunk_header_ + sizeof chunk_header_ - kCrlf.size(),
                    text_.GetSize(), 16);
  std::memcpy(end, kCrlf.data(), kCrlf.size());
  chunk_header_size_ = static_cast<size_t>(end - chunk_header_) + kCrlf.size();
}

void SseEvent::AppendTo(std::vector<boost::asio::const_buffer>* buffers) const {
  if (chunk_header_size_ != 0) buffers->emplace_back(chunk_header_, chunk_header_size_);
  buffers->emplace_back(text_.GetString(), text_.GetSize());
  if (chunk_header_size_ != 0) buffers->emplace_back(kCrlf.data(), kCrlf.size());
}

}  // namespace inferd::http
