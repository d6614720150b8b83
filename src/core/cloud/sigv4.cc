#include "core/cloud/sigv4.h"

#include <algorithm>
#include <cctype>

#include "core/cloud/crypto.h"

namespace inferd {
namespace {

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return text;
}

// Leading and trailing blanks dropped, inner runs of blanks made one space.
std::string TrimAll(const std::string& value) {
  std::string out;
  bool blank = false;
  for (char c : value) {
    if (c == ' ' || c == '\t') {
      blank = !out.empty();
      continue;
    }
    if (blank) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

// name -> trimmed value, sorted by name; repeated names joined with ','.
std::vector<std::pair<std::string, std::string>> CanonicalHeaders(const HttpHeaders& headers) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : headers) out.emplace_back(Lower(name), TrimAll(value));
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<std::string, std::string>> merged;
  for (auto& header : out) {
    if (!merged.empty() && merged.back().first == header.first) {
      merged.back().second += "," + header.second;
    } else {
      merged.push_back(std::move(header));
    }
  }
  return merged;
}

std::string SignedHeaderNames(const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string out;
  for (const auto& header : headers) {
    if (!out.empty()) out += ';';
    out += header.first;
  }
  return out;
}

}  // namespace

std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  for (const auto& [name, value] : query) {
    encoded.emplace_back(UriEncode(name, true), UriEncode(value, true));
  }
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out += '&';
    out += name + "=" + value;
  }
  return out;
}

std::string CanonicalRequest(const SigV4Request& request) {
  const auto headers = CanonicalHeaders(request.headers);
  std::string out = request.method + "\n" + request.canonical_uri + "\n" +
                    CanonicalQuery(request.query) + "\n";
  for (const auto& [name, value] : headers) out += name + ":" + value + "\n";
  out += "\n" + SignedHeaderNames(headers) + "\n" + request.payload_hash;
  return out;
}

std::string SigV4Authorization(const SigV4Request& request, const SigV4Scope& scope,
                               const std::string& amz_date) {
  const std::string day = amz_date.substr(0, 8);
  const std::string credential_scope =
      day + "/" + scope.region + "/" + scope.service + "/aws4_request";
  const std::string string_to_sign = "AWS4-HMAC-SHA256\n" + amz_date + "\n" + credential_scope +
                                     "\n" + HexEncode(Sha256(CanonicalRequest(request)));
  std::string key = HmacSha256("AWS4" + scope.secret_key, day);
  key = HmacSha256(key, scope.region);
  key = HmacSha256(key, scope.service);
  key = HmacSha256(key, "aws4_request");
  const std::string signature = HexEncode(HmacSha256(key, string_to_sign));
  return "AWS4-HMAC-SHA256 Credential=" + scope.access_key + "/" + credential_scope +
         ", SignedHeaders=" + SignedHeaderNames(CanonicalHeaders(request.headers)) +
         ", Signature=" + signature;
}

std::string AmzDate(std::time_t time) {
  std::tm utc{};
  gmtime_r(&time, &utc);
  char text[17];
  std::strftime(text, sizeof(text), "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

}  // namespace inferd
