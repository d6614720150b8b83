#include "core/cloud/cloud_url.h"

#include <cctype>
#include <vector>

namespace inferd {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// `s` split at '/', empty segments (doubled or trailing slashes) dropped.
std::vector<std::string> Segments(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('/', start);
    if (end == std::string_view::npos) end = s.size();
    if (end > start) out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string Join(const std::vector<std::string>& segments, size_t from) {
  std::string out;
  for (size_t i = from; i < segments.size(); ++i) {
    if (!out.empty()) out += '/';
    out += segments[i];
  }
  return out;
}

// "host:port" with a non-empty host and a decimal port.
bool IsHostPort(std::string_view s) {
  const size_t colon = s.rfind(':');
  if (colon == 0 || colon == std::string_view::npos || colon + 1 == s.size()) return false;
  for (size_t i = colon + 1; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

Status Invalid(std::string_view url, std::string_view why) {
  return Status::InvalidArg("invalid repository URL '" + std::string(url) + "': " +
                            std::string(why));
}

// After "s3://": an optional "http(s)://host:port/" or "host:port/", then bucket/path.
Status ParseS3(std::string_view rest, std::string_view url, CloudUrl* out) {
  std::string web_scheme = "http";
  if (StartsWith(rest, "https://") || StartsWith(rest, "http://")) {
    web_scheme = StartsWith(rest, "https://") ? "https" : "http";
    rest.remove_prefix(web_scheme.size() + 3);
    const std::string_view host = rest.substr(0, rest.find('/'));
    if (!IsHostPort(host)) return Invalid(url, "expected " + web_scheme + "://host:port/bucket");
  }
  std::vector<std::string> parts = Segments(rest);
  size_t first = 0;
  if (!parts.empty() && IsHostPort(parts[0])) {
    out->endpoint = web_scheme + "://" + parts[0];
    first = 1;
  }
  if (parts.size() <= first) return Invalid(url, "no bucket");
  out->bucket = parts[first];
  out->prefix = Join(parts, first + 1);
  return Status::Ok();
}

}  // namespace

bool IsCloudUrl(std::string_view path) {
  return StartsWith(path, "s3://") || StartsWith(path, "gs://") || StartsWith(path, "as://");
}

StatusOr<CloudUrl> ParseCloudUrl(std::string_view url) {
  if (!IsCloudUrl(url)) return Invalid(url, "expected s3://, gs:// or as://");
  CloudUrl out;
  out.scheme = std::string(url.substr(0, 2));
  std::string_view text = url;
  while (text.size() > 5 && text.back() == '/') text.remove_suffix(1);
  out.text = std::string(text);
  const std::string_view rest = url.substr(5);
  if (out.scheme == "s3") {
    RETURN_IF_ERROR(ParseS3(rest, url, &out));
    return out;
  }
  const std::vector<std::string> parts = Segments(rest);
  const size_t needed = out.scheme == "as" ? 2 : 1;
  if (parts.size() < needed) {
    return Invalid(url, out.scheme == "as" ? "expected as://account/container[/path]"
                                           : "no bucket");
  }
  if (out.scheme == "as") out.account = parts[0];
  out.bucket = parts[needed - 1];
  out.prefix = Join(parts, needed);
  return out;
}

}  // namespace inferd
