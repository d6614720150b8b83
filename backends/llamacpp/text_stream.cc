#include "text_stream.h"

#include <algorithm>

namespace inferd::llamacpp {

size_t CompleteUtf8Length(std::string_view text) {
  // Look back at most 3 bytes for the lead byte of the last character.
  const size_t n = text.size();
  for (size_t back = 1; back <= std::min<size_t>(4, n); ++back) {
    const auto byte = static_cast<unsigned char>(text[n - back]);
    if ((byte & 0xC0) == 0x80) continue;  // a continuation byte
    size_t need = 1;
    if ((byte & 0xE0) == 0xC0) need = 2;
    else if ((byte & 0xF0) == 0xE0) need = 3;
    else if ((byte & 0xF8) == 0xF0) need = 4;
    return back >= need ? n : n - back;
  }
  return n;  // only continuation bytes: not UTF-8 the model made; send as is
}

size_t TextStream::StopPrefixLength() const {
  size_t longest = 0;
  for (const std::string& stop : stop_) {
    const size_t most = std::min(stop.size() - 1, pending_.size());
    for (size_t k = most; k > longest; --k) {
      if (pending_.compare(pending_.size() - k, k, stop, 0, k) == 0) {
        longest = k;
        break;
      }
    }
  }
  return longest;
}

std::string TextStream::Push(std::string_view piece, bool* stopped) {
  *stopped = false;
  pending_.append(piece);
  size_t first = std::string::npos;
  for (const std::string& stop : stop_) first = std::min(first, pending_.find(stop));
  if (first != std::string::npos) {
    *stopped = true;
    std::string out = pending_.substr(0, first);
    pending_.clear();
    return out;
  }
  const size_t safe = std::min(CompleteUtf8Length(pending_), pending_.size() - StopPrefixLength());
  std::string out = pending_.substr(0, safe);
  pending_.erase(0, safe);
  return out;
}

std::string TextStream::Flush() {
  std::string out;
  out.swap(pending_);
  return out;
}

}  // namespace inferd::llamacpp
