// Turns a sequence's sampled token pieces into text that is safe to send:
// whole UTF-8 characters only (a character split across tokens waits for its
// last byte), and never a piece of text that may still turn out to begin a
// stop string. When a stop string appears, the text before it is the last
// text, and the stop string itself is never sent (as OpenAI's API). Pure; not
// thread-safe (one per sequence).
#ifndef INFERD_BACKENDS_LLAMACPP_TEXT_STREAM_H_
#define INFERD_BACKENDS_LLAMACPP_TEXT_STREAM_H_

#include <string>
#include <string_view>
#include <vector>

namespace inferd::llamacpp {

class TextStream {
 public:
  explicit TextStream(std::vector<std::string> stop) : stop_(std::move(stop)) {}

  // Appends a token's bytes; returns the text that became safe to send. Sets
  // *stopped when a stop string matched: then nothing more should be pushed.
  std::string Push(std::string_view piece, bool* stopped);

  // At the end of generation: whatever is held back (an unfinished UTF-8
  // character included, as the model produced it).
  std::string Flush();

 private:
  // Bytes at the end of pending_ that may begin a stop string.
  size_t StopPrefixLength() const;

  const std::vector<std::string> stop_;
  std::string pending_;  // produced, not yet sent
};

// The length of the longest prefix of `text` that ends on a UTF-8 character boundary.
size_t CompleteUtf8Length(std::string_view text);

}  // namespace inferd::llamacpp

#endif  // INFERD_BACKENDS_LLAMACPP_TEXT_STREAM_H_
