// Unit tests of ReadXgboostModelFile (format and version of JSON, UBJSON and
// legacy binary models) and ChooseXgboostReader (which library reads which
// file, and what is refused with both versions named).
#include "xgboost_model_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "ubjson_test_bytes.h"

namespace inferd::fil {
namespace {

XgboostModelFile Read(const std::string& bytes) {
  XgboostModelFile file;
  EXPECT_EQ(ReadXgboostModelFile(bytes, &file), "");
  return file;
}

// A legacy binary header: "binf", five 4-byte fields, major and minor version.
std::string Legacy(uint32_t major, uint32_t minor, const std::string& mark = "binf") {
  std::string bytes = mark + std::string(20, '\0');
  bytes.append(reinterpret_cast<const char*>(&major), 4);
  bytes.append(reinterpret_cast<const char*>(&minor), 4);
  return bytes + std::string(100, '\0');
}

TEST(XgboostModelFileTest, JsonVersionIsTheTopLevelRecord) {
  const XgboostModelFile file = Read(
      R"({"learner": {"version": [9, 9, 9], "attributes": {}, "trees": [[1, 2], NaN]},)"
      R"( "version": [3, 2, 0]})");
  EXPECT_EQ(file.format, XgboostFormat::kJson);
  ASSERT_TRUE(file.has_version);
  EXPECT_EQ(file.version.ToString(), "3.2.0");
}

TEST(XgboostModelFileTest, JsonWithoutVersionOrMalformed) {
  EXPECT_FALSE(Read(R"({"learner": {"version": [1, 7, 4]}})").has_version);
  EXPECT_FALSE(Read(R"({"version": "3.2.0"})").has_version);
  EXPECT_FALSE(Read(R"({"version": [3, 2]})").has_version);
  XgboostModelFile file;
  EXPECT_EQ(ReadXgboostModelFile(R"({"learner": 42)", &file),
            "not valid JSON (error at byte 14)");
}

TEST(XgboostModelFileTest, UbjsonVersionAfterLargeArrays) {
  using ubj::I64;
  using ubj::Key;
  const std::string bytes = "{" + Key("learner") + "{" + Key("w") + "[$d#" + I64(1000) +
                            std::string(4000, '\x3f') + "}" + Key("version") + "[$i#" +
                            ubj::Int('U', 3, 1) + "\x01\x07\x04" + "}";
  const XgboostModelFile file = Read(bytes);
  EXPECT_EQ(file.format, XgboostFormat::kUbjson);
  ASSERT_TRUE(file.has_version);
  EXPECT_EQ(file.version.ToString(), "1.7.4");
  XgboostModelFile broken;
  EXPECT_NE(ReadXgboostModelFile(bytes.substr(0, 2000), &broken).find("not valid UBJSON"),
            std::string::npos);
}

TEST(XgboostModelFileTest, LegacyBinaryVersionFromItsHeader) {
  const XgboostModelFile file = Read(Legacy(3, 0));
  EXPECT_EQ(file.format, XgboostFormat::kLegacyBinary);
  ASSERT_TRUE(file.has_version);
  EXPECT_EQ(file.version.ToString(), "3.0.0");
  EXPECT_FALSE(Read(Legacy(1, 7, "xxxx")).has_version);  // no mark: XGBoost judges it
  EXPECT_FALSE(Read("this is not an XGBoost model").has_version);
  EXPECT_FALSE(Read("").has_version);
}

XgboostLibraries Libraries(bool bundled) {
  XgboostLibraries libraries;
  libraries.linked = {1, 7, 4};
  libraries.bundled_available = bundled;
  libraries.bundled = {3, 2, 0};
  libraries.bundled_error = "the bundled XGBoost is not available (why)";
  return libraries;
}

// The reader chosen, or the refusal.
std::string Choose(XgboostFormat format, XgboostVersion version, bool bundled = true,
                   bool has_version = true) {
  XgboostModelFile file{format, has_version, version};
  XgboostReader reader = XgboostReader::kLinked;
  const std::string error = ChooseXgboostReader(file, Libraries(bundled), &reader);
  if (!error.empty()) return error;
  return reader == XgboostReader::kLinked ? "linked" : "bundled";
}

TEST(XgboostModelFileTest, LegacyBinaryIsReadByTheLinkedLibraryUpTo30) {
  EXPECT_EQ(Choose(XgboostFormat::kLegacyBinary, {1, 7, 0}), "linked");
  EXPECT_EQ(Choose(XgboostFormat::kLegacyBinary, {3, 0, 0}), "linked");
  EXPECT_EQ(Choose(XgboostFormat::kLegacyBinary, {0, 0, 0}, true, false), "linked");
  EXPECT_EQ(Choose(XgboostFormat::kLegacyBinary, {3, 1, 0}),
            "a legacy binary model written by XGBoost 3.1.0, which no XGBoost after 3.0 "
            "writes or reads; save it as JSON or UBJSON");
}

TEST(XgboostModelFileTest, JsonAndUbjsonAreReadByTheBundledLibraryUpToItsVersion) {
  EXPECT_EQ(Choose(XgboostFormat::kJson, {1, 7, 4}), "bundled");
  EXPECT_EQ(Choose(XgboostFormat::kUbjson, {3, 2, 9}), "bundled");
  EXPECT_EQ(Choose(XgboostFormat::kJson, {3, 3, 0}),
            "a JSON model written by XGBoost 3.3.0, newer than the XGBoost 3.2.0 the fil "
            "backend reads it with");
  EXPECT_EQ(Choose(XgboostFormat::kUbjson, {4, 0, 0}).substr(0, 48),
            "a UBJSON model written by XGBoost 4.0.0, newer t");
  EXPECT_EQ(Choose(XgboostFormat::kJson, {}, true, false),
            "an XGBoost JSON model without its \"version\": [major, minor, patch] record; "
            "save it again with XGBoost");
}

TEST(XgboostModelFileTest, WithoutTheBundledLibraryOnlyWhatTheLinkedOneReadsRight) {
  EXPECT_EQ(Choose(XgboostFormat::kJson, {1, 7, 6}, false), "linked");
  EXPECT_EQ(Choose(XgboostFormat::kUbjson, {1, 5, 0}, false), "linked");
  EXPECT_EQ(Choose(XgboostFormat::kJson, {2, 1, 0}, false),
            "a JSON model written by XGBoost 2.1.0, which XGBoost 1.7.4 misreads, and the "
            "bundled XGBoost is not available (why)");
}

}  // namespace
}  // namespace inferd::fil
