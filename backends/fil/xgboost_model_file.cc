// Reading an XGBoost model file's format and version (see xgboost_model_file.h).
#include "xgboost_model_file.h"

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ubjson_cursor.h"

namespace inferd::fil {
namespace {

// Collects the top-level "version" array's integers; stops the parse there.
class JsonVersionHandler
    : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, JsonVersionHandler> {
 public:
  std::vector<int64_t> version;
  bool found = false;

  bool Key(const char* text, rapidjson::SizeType length, bool /*copy*/) {
    next_is_version_ = depth_ == 1 && std::string_view(text, length) == "version";
    return true;
  }
  bool StartObject() { return Open(); }
  bool EndObject(rapidjson::SizeType /*members*/) { return Close(); }
  bool StartArray() {
    in_version_ = next_is_version_ && depth_ == 1;
    return Open();
  }
  bool EndArray(rapidjson::SizeType /*elements*/) {
    if (in_version_ && depth_ == 2) {
      found = true;
      return false;  // stop: nothing after it is needed
    }
    return Close();
  }
  bool Int(int v) { return Number(v); }
  bool Uint(unsigned v) { return Number(v); }
  bool Int64(int64_t v) { return Number(v); }
  bool Uint64(uint64_t v) { return Number(static_cast<int64_t>(v)); }
  bool Default() {
    next_is_version_ = false;
    return true;
  }

 private:
  bool Open() {
    ++depth_;
    if (!in_version_) next_is_version_ = false;
    return true;
  }
  bool Close() {
    --depth_;
    return true;
  }
  bool Number(int64_t v) {
    if (in_version_ && depth_ == 2) version.push_back(v);
    next_is_version_ = false;
    return true;
  }

  int depth_ = 0;
  bool next_is_version_ = false;
  bool in_version_ = false;
};

// Three non-negative integers, as XGBoost writes its version; false otherwise.
bool ToVersion(const std::vector<int64_t>& parts, XgboostVersion* version) {
  if (parts.size() != 3) return false;
  for (int64_t part : parts) {
    if (part < 0 || part > 100000) return false;
  }
  *version = {static_cast<int>(parts[0]), static_cast<int>(parts[1]),
              static_cast<int>(parts[2])};
  return true;
}

std::string ReadJsonVersion(std::string_view bytes, XgboostModelFile* file) {
  JsonVersionHandler handler;
  rapidjson::MemoryStream stream(bytes.data(), bytes.size());
  rapidjson::Reader reader;
  const rapidjson::ParseResult result =
      reader.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag>(stream,
                                                                                    handler);
  if (!handler.found && result.IsError()) {
    return "not valid JSON (error at byte " + std::to_string(result.Offset()) + ")";
  }
  file->has_version = handler.found && ToVersion(handler.version, &file->version);
  return "";
}

std::string ReadUbjsonVersion(std::string_view bytes, XgboostModelFile* file) {
  UbjsonCursor cursor(bytes);
  std::vector<int64_t> version;
  bool found = false;
  const bool ok = cursor.ForEachTopLevelMember([&](std::string_view key) {
    if (key != "version") return cursor.SkipValue();
    found = cursor.ReadIntegerArray(&version);
    return found;
  });
  if (!ok && !found) return "not valid UBJSON (" + cursor.error() + ")";
  file->has_version = found && ToVersion(version, &file->version);
  return "";
}

// The legacy binary header: "binf", then LearnerModelParamLegacy, whose
// uint32 major_version and minor_version follow five 4-byte fields.
void ReadLegacyVersion(std::string_view bytes, XgboostModelFile* file) {
  constexpr size_t kMajorAt = 4 + 5 * 4;
  if (bytes.size() < kMajorAt + 8 || bytes.substr(0, 4) != "binf") return;
  uint32_t major = 0;
  uint32_t minor = 0;
  std::memcpy(&major, bytes.data() + kMajorAt, 4);  // little-endian, as XGBoost wrote it
  std::memcpy(&minor, bytes.data() + kMajorAt + 4, 4);
  if (major > 100000 || minor > 100000) return;  // not a header XGBoost wrote: it judges
  file->has_version = true;
  file->version = {static_cast<int>(major), static_cast<int>(minor), 0};
}

}  // namespace

std::string XgboostVersion::ToString() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

const char* XgboostFormatName(XgboostFormat format) {
  switch (format) {
    case XgboostFormat::kJson: return "JSON";
    case XgboostFormat::kUbjson: return "UBJSON";
    case XgboostFormat::kLegacyBinary: break;
  }
  return "legacy binary";
}

std::string ReadXgboostModelFile(std::string_view bytes, XgboostModelFile* file) {
  *file = XgboostModelFile{};
  // XGBoost's own test: '{' then '"' is JSON, '{' then a letter (a UBJSON
  // type marker) is UBJSON, anything else its legacy binary format.
  if (bytes.empty() || bytes[0] != '{') {
    ReadLegacyVersion(bytes, file);
    return "";
  }
  if (bytes.size() > 1 && std::isalpha(static_cast<unsigned char>(bytes[1])) != 0) {
    file->format = XgboostFormat::kUbjson;
    return ReadUbjsonVersion(bytes, file);
  }
  file->format = XgboostFormat::kJson;
  return ReadJsonVersion(bytes, file);
}

std::string ChooseXgboostReader(const XgboostModelFile& file, const XgboostLibraries& libraries,
                                XgboostReader* reader) {
  const std::string written = "written by XGBoost " + file.version.ToString();
  if (file.format == XgboostFormat::kLegacyBinary) {
    if (file.has_version && file.version.NewerThan({3, 0, 0})) {
      return "a legacy binary model " + written + ", which no XGBoost after 3.0 writes or "
             "reads; save it as JSON or UBJSON";
    }
    *reader = XgboostReader::kLinked;
    return "";
  }
  const std::string format = XgboostFormatName(file.format);
  if (!file.has_version) {
    return "an XGBoost " + format + " model without its \"version\": [major, minor, patch] "
           "record; save it again with XGBoost";
  }
  if (libraries.bundled_available) {
    if (file.version.NewerThan(libraries.bundled)) {
      return "a " + format + " model " + written + ", newer than the XGBoost " +
             libraries.bundled.ToString() + " the fil backend reads it with";
    }
    *reader = XgboostReader::kBundled;
    return "";
  }
  if (file.version.NewerThan(libraries.linked)) {
    return "a " + format + " model " + written + ", which XGBoost " +
           libraries.linked.ToString() + " misreads, and " + libraries.bundled_error;
  }
  *reader = XgboostReader::kLinked;
  return "";
}

}  // namespace inferd::fil
