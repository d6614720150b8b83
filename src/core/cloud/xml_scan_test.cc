#include "core/cloud/xml_scan.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

TEST(XmlScanTest, FindsElementsByExactTag) {
  const std::string xml =
      "<R><KeyCount>2</KeyCount><Contents><Key>a&amp;b</Key></Contents>"
      "<Contents><Key>c&#233;&#x41;</Key></Contents><Empty/></R>";
  const auto contents = XmlElements(xml, "Contents");
  ASSERT_EQ(contents.size(), 2u);
  EXPECT_EQ(XmlText(contents[0], "Key"), "a&b");
  EXPECT_EQ(XmlText(contents[1], "Key"), "c\xc3\xa9" "A");
  EXPECT_EQ(XmlText(xml, "KeyCount"), "2");
  EXPECT_EQ(XmlText(xml, "Empty"), "");
  EXPECT_EQ(XmlText(xml, "Missing"), "");
  EXPECT_EQ(XmlDecode("&lt;&gt;&quot;&apos;&unknown; & x"), "<>\"'&unknown; & x");
}

}  // namespace
}  // namespace inferd
