// Tests of the BYTES element encoding shared with the protocol.
#include "common/bytes_elements.h"

#include <gtest/gtest.h>

namespace inferd::backend_common {
namespace {

TEST(BytesCodecTest, RoundTripsElementsIncludingEmptyAndNul) {
  const std::vector<std::string> elements = {"hello", "", std::string("a\0b", 3),
                                             "\xc3\xa9t\xc3\xa9"};
  size_t payload = 0;
  for (const auto& e : elements) payload += e.size();
  std::string wire(SerializedBytesSize(elements.size(), payload), '?');
  char* cursor = wire.data();
  for (const auto& e : elements) cursor = WriteBytesElement(cursor, e);
  EXPECT_EQ(cursor, wire.data() + wire.size());
  EXPECT_EQ(wire.substr(0, 9), std::string("\x05\x00\x00\x00hello", 9));

  std::vector<std::string_view> parsed;
  ASSERT_EQ(SplitBytesElements(wire, &parsed), "");
  ASSERT_EQ(parsed.size(), elements.size());
  for (size_t i = 0; i < elements.size(); ++i) EXPECT_EQ(parsed[i], elements[i]);
}

TEST(BytesCodecTest, ReportsTruncatedLengthAndOverrun) {
  std::vector<std::string_view> parsed;
  EXPECT_NE(SplitBytesElements(std::string("\x01\x00", 2), &parsed).find("truncated"),
            std::string::npos);
  parsed.clear();
  const std::string overrun("\x09\x00\x00\x00" "abc", 7);
  EXPECT_NE(SplitBytesElements(overrun, &parsed).find("claims 9 bytes"), std::string::npos);
}

TEST(BytesCodecTest, EmptyDataHasNoElements) {
  std::vector<std::string_view> parsed;
  EXPECT_EQ(SplitBytesElements("", &parsed), "");
  EXPECT_TRUE(parsed.empty());
}

}  // namespace
}  // namespace inferd::backend_common
