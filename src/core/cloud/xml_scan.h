// Just enough XML for the answers of S3 and Azure Blob (a listing, an
// error): the text of simple elements, found by tag name, entities decoded.
// No attributes, namespaces or nesting of the same tag are needed there, so
// this is a scanner, not a parser. Pure functions.
#ifndef INFERD_CORE_CLOUD_XML_SCAN_H_
#define INFERD_CORE_CLOUD_XML_SCAN_H_

#include <string>
#include <string_view>
#include <vector>

namespace inferd {

// The inner text of each <tag>...</tag> in `xml`, in order (raw, not decoded).
std::vector<std::string_view> XmlElements(std::string_view xml, std::string_view tag);
// The decoded text of the first <tag> in `xml`; "" when absent.
std::string XmlText(std::string_view xml, std::string_view tag);
// &amp; &lt; &gt; &quot; &apos; and numeric references decoded.
std::string XmlDecode(std::string_view text);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_XML_SCAN_H_
