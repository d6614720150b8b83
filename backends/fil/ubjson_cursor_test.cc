// Unit tests of UbjsonCursor: members of the top-level object, skipping every
// kind of value (optimized containers in one step), integer arrays, and
// refusing truncated, unknown or too deeply nested input.
#include "ubjson_cursor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ubjson_test_bytes.h"

namespace inferd::fil {
namespace {

using ubj::I64;
using ubj::Int;
using ubj::Key;
using ubj::Str;

// The keys of the top-level object, skipping every value; "" on error.
std::vector<std::string> Keys(const std::string& bytes, std::string* error = nullptr) {
  UbjsonCursor cursor(bytes);
  std::vector<std::string> keys;
  const bool ok = cursor.ForEachTopLevelMember([&](std::string_view key) {
    keys.emplace_back(key);
    return cursor.SkipValue();
  });
  if (error != nullptr) *error = cursor.error();
  if (!ok) keys.clear();
  return keys;
}

TEST(UbjsonCursorTest, WalksMembersOverEveryKindOfValue) {
  const std::string floats = "[$d#" + I64(3) + std::string(12, '\x01');  // typed, counted
  const std::string nested = "{" + Key("a") + "[" + Int('i', 1, 1) + "T" + "Z" + "]" +
                             Key("b") + Str("text") + "}";
  const std::string counted = "{#" + Int('U', 2, 1) + Key("x") + "F" + Key("y") + "D" +
                              std::string(8, '\0');
  const std::string bytes = "{" + Key("f") + floats + Key("n") + nested + Key("c") + counted +
                            Key("i") + Int('I', -2, 2) + Key("l") + Int('l', 7, 4) + Key("u") +
                            Int('U', 200, 1) + Key("h") + "H" + Int('i', 2, 1) + "12" + "}";
  EXPECT_EQ(Keys(bytes), (std::vector<std::string>{"f", "n", "c", "i", "l", "u", "h"}));
}

TEST(UbjsonCursorTest, ReadsIntegerArraysTypedOrNot) {
  for (const std::string& array :
       {"[" + I64(3) + Int('i', 2, 1) + Int('I', 300, 2) + "]",
        "[$L#" + Int('i', 3, 1) + std::string(I64(3)).substr(1) + I64(2).substr(1) +
            I64(300).substr(1),
        "[#" + Int('i', 3, 1) + Int('U', 3, 1) + Int('l', 2, 4) + I64(300)}) {
    const std::string bytes = "{" + Key("version") + array + "}";
    UbjsonCursor cursor(bytes);
    std::vector<int64_t> values;
    EXPECT_TRUE(cursor.ForEachTopLevelMember(
        [&](std::string_view) { return cursor.ReadIntegerArray(&values); }))
        << cursor.error();
    EXPECT_EQ(values, (std::vector<int64_t>{3, 2, 300}));
  }
}

TEST(UbjsonCursorTest, NegativeIntegersAreSignExtended) {
  const std::string bytes = "{" + Key("v") + "[" + Int('i', -1, 1) + Int('l', -5, 4) + "]}";
  UbjsonCursor cursor(bytes);
  std::vector<int64_t> values;
  ASSERT_TRUE(cursor.ForEachTopLevelMember(
      [&](std::string_view) { return cursor.ReadIntegerArray(&values); }));
  EXPECT_EQ(values, (std::vector<int64_t>{-1, -5}));
}

TEST(UbjsonCursorTest, RefusesTruncatedUnknownAndTooDeepInput) {
  std::string error;
  EXPECT_TRUE(Keys("{" + Key("f") + "[$d#" + I64(1000) + "xxxx}", &error).empty());
  EXPECT_NE(error.find("unexpected end"), std::string::npos) << error;
  EXPECT_TRUE(Keys("{" + Key("f") + "Q}", &error).empty());
  EXPECT_NE(error.find("unknown type marker 'Q' at byte"), std::string::npos) << error;
  EXPECT_TRUE(Keys("{" + Key("f") + std::string(100, '[') + std::string(100, ']') + "}", &error)
                  .empty());
  EXPECT_NE(error.find("nesting deeper than"), std::string::npos) << error;
  EXPECT_TRUE(Keys("[]", &error).empty());
  EXPECT_NE(error.find("an object expected"), std::string::npos) << error;
  EXPECT_TRUE(Keys("{" + Key("f") + "S" + I64(-4) + "}", &error).empty());
  EXPECT_NE(error.find("negative length"), std::string::npos) << error;
  EXPECT_TRUE(Keys("{" + I64(1000000) + "k", &error).empty());  // a key past the end
  EXPECT_TRUE(Keys("{" + Key("f") + "[$d#" + I64(INT64_MAX) + "}", &error).empty());
}

TEST(UbjsonCursorTest, IntegerArrayRefusesOtherValues) {
  const std::string bytes = "{" + Key("v") + "[" + Str("3") + "]}";
  UbjsonCursor cursor(bytes);
  std::vector<int64_t> values;
  EXPECT_FALSE(cursor.ForEachTopLevelMember(
      [&](std::string_view) { return cursor.ReadIntegerArray(&values); }));
  EXPECT_NE(cursor.error().find("where an integer belongs"), std::string::npos);
}

}  // namespace
}  // namespace inferd::fil
