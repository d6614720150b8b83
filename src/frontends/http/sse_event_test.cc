// Server-Sent Event framing: the event text, its chunk, and a whole stream
// read back the way a client reads it.
#include "http/sse_event.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "http/generate_response.h"
#include "http/tensor_json.h"

namespace inferd::http {
namespace {

std::string Bytes(const std::vector<boost::asio::const_buffer>& buffers) {
  std::string bytes;
  for (const auto& buffer : buffers) {
    bytes.append(static_cast<const char*>(buffer.data()), buffer.size());
  }
  return bytes;
}

std::string Framed(const SseEvent& event) {
  std::vector<boost::asio::const_buffer> buffers;
  event.AppendTo(&buffers);
  return Bytes(buffers);
}

// Reads a chunked body back into its chunks' data, as an HTTP client does.
std::string Dechunk(std::string_view body, bool* complete) {
  std::string data;
  *complete = false;
  while (!body.empty()) {
    const size_t line_end = body.find("\r\n");
    if (line_end == std::string_view::npos) break;
    const size_t size = std::stoul(std::string(body.substr(0, line_end)), nullptr, 16);
    body.remove_prefix(line_end + 2);
    if (size == 0) {
      *complete = body == "\r\n";
      break;
    }
    data.append(body.substr(0, size));
    EXPECT_EQ(body.substr(size, 2), "\r\n");
    body.remove_prefix(size + 2);
  }
  return data;
}

TEST(SseEventTest, AnEventIsOneDataLineAndABlankLine) {
  SseEvent event;
  JsonWriter writer(event.json());
  writer.StartObject();
  writer.Key("text_output");
  writer.String("a\nb");  // the line break is escaped: the data stays one line
  writer.EndObject();
  event.Finish(/*chunked=*/false);
  EXPECT_EQ(Framed(event), "data: {\"text_output\":\"a\\nb\"}\n\n");
}

TEST(SseEventTest, AChunkedEventIsOneChunk) {
  SseEvent event;
  JsonWriter writer(event.json());
  RenderGenerateError("boom", &writer);
  event.Finish(/*chunked=*/true);
  const std::string text = "data: {\"error\":\"boom\"}\n\n";
  char size[8];
  std::snprintf(size, sizeof size, "%zx", text.size());
  EXPECT_EQ(Framed(event), std::string(size) + "\r\n" + text + "\r\n");
}

TEST(SseEventTest, RestartDropsWhatWasWritten) {
  SseEvent event;
  {
    JsonWriter writer(event.json());
    writer.StartObject();
    writer.Key("half");  // a rendering that failed part way
  }
  event.Restart();
  JsonWriter writer(event.json());
  RenderGenerateError("failed", &writer);
  event.Finish(false);
  EXPECT_EQ(Framed(event), "data: {\"error\":\"failed\"}\n\n");
}

TEST(SseEventTest, AStreamOfEventsReadsBackInOrder) {
  // Large events need several hex digits of chunk size.
  std::deque<SseEvent> events;
  std::vector<boost::asio::const_buffer> buffers;
  std::string expected;
  for (int i = 0; i < 3; ++i) {
    SseEvent& event = events.emplace_back();
    JsonWriter writer(event.json());
    writer.StartObject();
    writer.Key("index");
    writer.Int(i);
    writer.Key("text");
    const std::string text(i * 5000, 'x');
    writer.String(text.c_str(), static_cast<rapidjson::SizeType>(text.size()));
    writer.EndObject();
    event.Finish(true);
    event.AppendTo(&buffers);
    expected += "data: {\"index\":" + std::to_string(i) + ",\"text\":\"" + text + "\"}\n\n";
  }
  buffers.emplace_back(kLastChunk.data(), kLastChunk.size());
  bool complete = false;
  EXPECT_EQ(Dechunk(Bytes(buffers), &complete), expected);
  EXPECT_TRUE(complete);
}

}  // namespace
}  // namespace inferd::http
