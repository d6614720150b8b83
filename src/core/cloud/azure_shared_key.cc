#include "core/cloud/azure_shared_key.h"

#include <algorithm>
#include <cctype>

#include "core/cloud/crypto.h"

namespace inferd {
namespace {

// Folds runs of whitespace into one space and trims both ends.
std::string FoldWhitespace(std::string_view value) {
  std::string out;
  bool space = false;
  for (const char c : value) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A standard header's value for the string to sign ("" when absent).
std::string HeaderOrEmpty(const std::map<std::string, std::string>& headers,
                          const std::string& name) {
  const auto it = headers.find(name);
  if (it == headers.end()) return {};
  // Since version 2015-02-21 a zero Content-Length is signed as empty.
  if (name == "content-length" && it->second == "0") return {};
  return it->second;
}

}  // namespace

std::string AzureCanonicalizedHeaders(const std::map<std::string, std::string>& headers) {
  std::string out;
  // std::map keeps the (already lower-case) names sorted.
  for (const auto& [name, value] : headers) {
    if (name.rfind("x-ms-", 0) != 0) continue;
    out += name + ":" + FoldWhitespace(value) + "\n";
  }
  return out;
}

std::string AzureCanonicalizedResource(std::string_view account,
                                       const AzureRequestParts& request) {
  std::string out = "/" + std::string(account) + request.path;
  std::map<std::string, std::vector<std::string>> params;
  for (const auto& [name, value] : request.query) params[Lower(name)].push_back(value);
  for (auto& [name, values] : params) {
    std::sort(values.begin(), values.end());
    out += "\n" + name + ":";
    for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + values[i];
  }
  return out;
}

std::string AzureStringToSign(std::string_view account, const AzureRequestParts& request) {
  static const char* const kStandardHeaders[] = {
      "content-encoding", "content-language", "content-length", "content-md5",
      "content-type",     "date",             "if-modified-since", "if-match",
      "if-none-match",    "if-unmodified-since", "range"};
  std::string out = request.method + "\n";
  for (const char* name : kStandardHeaders) out += HeaderOrEmpty(request.headers, name) + "\n";
  return out + AzureCanonicalizedHeaders(request.headers) +
         AzureCanonicalizedResource(account, request);
}

StatusOr<std::string> AzureSharedKeyAuthorization(std::string_view account,
                                                  std::string_view account_key,
                                                  const AzureRequestParts& request) {
  const auto key = Base64Decode(account_key);
  if (!key.ok()) {
    return Status::InvalidArg("the Azure Storage key of account '" + std::string(account) +
                              "' is not base64 (AZURE_STORAGE_KEY or account_key)");
  }
  return "SharedKey " + std::string(account) + ":" +
         Base64Encode(HmacSha256(key.value(), AzureStringToSign(account, request)));
}

}  // namespace inferd
