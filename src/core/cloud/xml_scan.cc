#include "core/cloud/xml_scan.h"

#include <cstdlib>

namespace inferd {
namespace {

// Appends code point `cp` as UTF-8.
void AppendUtf8(unsigned long cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xc0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xe0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    *out += static_cast<char>(0xf0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

}  // namespace

std::vector<std::string_view> XmlElements(std::string_view xml, std::string_view tag) {
  std::vector<std::string_view> out;
  const std::string open = "<" + std::string(tag);
  const std::string close = "</" + std::string(tag) + ">";
  size_t pos = 0;
  while ((pos = xml.find(open, pos)) != std::string_view::npos) {
    const size_t after_name = pos + open.size();
    if (after_name >= xml.size()) break;
    const char next = xml[after_name];
    if (next != '>' && next != ' ' && next != '/') {  // <KeyCount> is not <Key>
      pos = after_name;
      continue;
    }
    const size_t start = xml.find('>', after_name);
    if (start == std::string_view::npos) break;
    if (xml[start - 1] == '/') {  // <Tag/>: empty
      out.emplace_back();
      pos = start + 1;
      continue;
    }
    const size_t end = xml.find(close, start + 1);
    if (end == std::string_view::npos) break;
    out.push_back(xml.substr(start + 1, end - start - 1));
    pos = end + close.size();
  }
  return out;
}

std::string XmlText(std::string_view xml, std::string_view tag) {
  const std::vector<std::string_view> found = XmlElements(xml, tag);
  return found.empty() ? "" : XmlDecode(found.front());
}

std::string XmlDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const size_t semi = text[i] == '&' ? text.find(';', i) : std::string_view::npos;
    if (semi == std::string_view::npos || semi - i > 10) {
      out += text[i];
      continue;
    }
    const std::string_view entity = text.substr(i + 1, semi - i - 1);
    if (entity == "amp") out += '&';
    else if (entity == "lt") out += '<';
    else if (entity == "gt") out += '>';
    else if (entity == "quot") out += '"';
    else if (entity == "apos") out += '\'';
    else if (entity.size() > 1 && entity[0] == '#') {
      const bool hex = entity[1] == 'x' || entity[1] == 'X';
      const std::string digits(entity.substr(hex ? 2 : 1));
      AppendUtf8(std::strtoul(digits.c_str(), nullptr, hex ? 16 : 10), &out);
    } else {
      out += text.substr(i, semi - i + 1);
    }
    i = semi;
  }
  return out;
}

}  // namespace inferd
