// Shortening LibTorch messages (see error_text.h).
#include "error_text.h"

#include <vector>

namespace inferd::pytorch {
namespace {

std::string_view Trim(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
    line.remove_suffix(1);
  }
  return line;
}

std::vector<std::string_view> NonEmptyLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = Trim(text.substr(0, end));
    if (!line.empty()) lines.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

}  // namespace

std::string TrimTorchMessage(std::string_view message) {
  const std::vector<std::string_view> lines = NonEmptyLines(message);
  if (lines.empty()) return "unknown error";
  std::string_view line = lines.front();
  // After a traceback (frames, source excerpts, "~~~ <--- HERE" marks) the
  // interpreter ends with the error proper.
  if (message.find("Traceback of TorchScript") != std::string_view::npos) line = lines.back();
  constexpr std::string_view kRuntime = "RuntimeError: ";
  if (line.substr(0, kRuntime.size()) == kRuntime) line.remove_prefix(kRuntime.size());
  return std::string(line);
}

}  // namespace inferd::pytorch
