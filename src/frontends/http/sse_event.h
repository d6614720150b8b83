// One Server-Sent Event of a generate_stream response, framed for the wire:
// "data: <json>\n\n", sent as one chunk of the chunked transfer encoding
// ("<hex size>\r\n<event>\r\n") when the response is chunked. The JSON comes
// from rapidjson's Writer, which escapes every line break inside strings, so
// the data is one line as SSE requires. The event owns its bytes, so events
// can queue while an earlier one is written. Not thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_SSE_EVENT_H_
#define INFERD_FRONTENDS_HTTP_SSE_EVENT_H_

#include <rapidjson/stringbuffer.h>

#include <boost/asio/buffer.hpp>

#include <cstddef>
#include <string_view>
#include <vector>

namespace inferd::http {

// Ends a chunked body: the last chunk, of size 0, with no trailers.
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

class SseEvent {
 public:
  SseEvent() { Restart(); }
  SseEvent(const SseEvent&) = delete;
  SseEvent& operator=(const SseEvent&) = delete;

  // Where the event's JSON is written (after "data: "); empty it with
  // Restart to write it anew.
  rapidjson::StringBuffer& json() { return text_; }
  void Restart();

  // Ends the event (the blank line) and, when `chunked`, frames it as a chunk.
  void Finish(bool chunked);

  // Appends the event's bytes to a gather write: the chunk header, the event
  // and the chunk's end (only the event when not chunked). The buffers point
  // into this event, which must outlive the write.
  void AppendTo(std::vector<boost::asio::const_buffer>* buffers) const;

 private:
  rapidjson::StringBuffer text_;  // "data: <json>\n\n"
  char chunk_header_[20];         // "<hex size>\r\n"
  size_t chunk_header_size_ = 0;  // 0: not chunked
};

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_SSE_EVENT_H_
