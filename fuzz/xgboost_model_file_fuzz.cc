// Fuzz target: an XGBoost model file's first read (backends/fil), before any
// XGBoost sees it: the format from its first bytes, then the version from the
// UBJSON walker (ubjson_cursor.h), the JSON reader's version handler or the
// legacy binary header, and the reader chosen from it. The same bytes also go
// through the UBJSON cursor directly, every top-level member read as an
// integer array, so that reader's paths are reached whatever the key.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fil/ubjson_cursor.h"
#include "fil/xgboost_model_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  inferd::fil::XgboostModelFile file;
  if (inferd::fil::ReadXgboostModelFile(bytes, &file).empty()) {
    inferd::fil::XgboostLibraries libraries;
    libraries.linked = {1, 7, 6};
    libraries.bundled_available = size % 2 == 0;
    libraries.bundled = {3, 2, 0};
    inferd::fil::XgboostReader reader = inferd::fil::XgboostReader::kLinked;
    (void)inferd::fil::ChooseXgboostReader(file, libraries, &reader);
  }
  inferd::fil::UbjsonCursor cursor(bytes);
  std::vector<int64_t> values;
  (void)cursor.ForEachTopLevelMember([&](std::string_view key) {
    return key.size() % 2 == 0 ? cursor.ReadIntegerArray(&values) : cursor.SkipValue();
  });
  return 0;
}
