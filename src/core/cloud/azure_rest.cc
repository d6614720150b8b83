#include "core/cloud/azure_rest.h"

#include <cctype>
#include <cstdlib>

#include "core/cloud/crypto.h"
#include "core/cloud/xml_scan.h"

namespace inferd {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// %XX decoded ('+' kept: it is a space only in forms, which these are not).
std::string PercentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
        HexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::string EncodeAzureQuery(const AzureQuery& query) {
  std::string out;
  for (const auto& [name, value] : query) {
    if (!out.empty()) out += '&';
    out += UriEncode(name, true) + "=" + UriEncode(value, true);
  }
  return out;
}

StatusOr<AzureRequestParts> AzureRequestPartsOf(const HttpRequest& request) {
  const std::string_view url = request.url;
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    return Status::InvalidArg("not an absolute URL: '" + request.url + "'");
  }
  const size_t path_start = url.find('/', scheme_end + 3);
  AzureRequestParts parts;
  parts.method = request.method;
  const std::string_view rest = path_start == std::string_view::npos ? "/" : url.substr(path_start);
  const size_t question = rest.find('?');
  parts.path = std::string(rest.substr(0, question));
  if (question != std::string_view::npos) {
    std::string_view query = rest.substr(question + 1);
    while (!query.empty()) {
      const size_t amp = query.find('&');
      const std::string_view pair = query.substr(0, amp);
      const size_t eq = pair.find('=');
      const std::string_view value =
          eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
      parts.query.emplace_back(PercentDecode(pair.substr(0, eq)), PercentDecode(value));
      query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    }
  }
  for (const auto& [name, value] : request.headers) parts.headers[Lower(name)] = value;
  return parts;
}

StatusOr<AzureBlobPage> ParseAzureBlobList(const std::string& xml) {
  if (XmlElements(xml, "EnumerationResults").empty()) {
    return Status::InvalidArg("the blob listing has no <EnumerationResults>");
  }
  AzureBlobPage page;
  for (const std::string_view blob : XmlElements(xml, "Blob")) {
    AzureBlob entry;
    entry.name = XmlText(blob, "Name");
    entry.size = std::strtoull(XmlText(blob, "Content-Length").c_str(), nullptr, 10);
    entry.etag = XmlText(blob, "Etag");
    entry.content_md5 = XmlText(blob, "Content-MD5");
    if (entry.name.empty()) {
      return Status::InvalidArg("the blob listing has a <Blob> without <Name>");
    }
    page.blobs.push_back(std::move(entry));
  }
  // After the blobs: a blob's metadata could hold a tag of that name too.
  const std::vector<std::string_view> markers = XmlElements(xml, "NextMarker");
  if (!markers.empty()) page.next_marker = XmlDecode(markers.back());
  return page;
}

void ReadAzureErrorBody(const std::string& xml, std::string* code, std::string* message) {
  if (xml.empty()) return;
  if (XmlElements(xml, "Error").empty()) {
    if (message->empty()) *message = xml.substr(0, 200);
    return;
  }
  const std::string body_code = XmlText(xml, "Code");
  std::string words = XmlText(xml, "Message");
  // Azure's message goes on with "RequestId:..." and "Time:..." lines.
  words = words.substr(0, words.find('\n'));
  if (!body_code.empty()) *code = body_code;
  if (!words.empty()) *message = words;
}

}  // namespace inferd
