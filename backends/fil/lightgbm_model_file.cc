// Checking a LightGBM text model's format version (see lightgbm_model_file.h).
#include "lightgbm_model_file.h"

#include <charconv>

namespace inferd::fil {
namespace {

constexpr int kMaxHeaderLines = 1000;  // the header is a dozen lines; trees follow

void TrimLineEnd(std::string* line) {
  while (!line->empty() && (line->back() == '\r' || line->back() == ' ')) line->pop_back();
}

std::string CheckVersion(const std::string& value) {
  int format = 0;
  const char* end = value.data() + value.size();
  const bool is_vn = value.size() > 1 && value[0] == 'v';
  const auto [ptr, ec] = is_vn ? std::from_chars(value.data() + 1, end, format)
                               : std::from_chars(end, end, format);
  if (!is_vn || ec != std::errc() || ptr != end || format < 1) {
    return "the LightGBM model's format version 'version=" + value + "' is not one LightGBM "
           "writes (v2, v3, v4)";
  }
  if (format > kLightgbmNewestFormat) {
    return "a LightGBM model of format " + value + ", newer than the v" +
           std::to_string(kLightgbmNewestFormat) + " that the fil backend's LightGBM 4 reads";
  }
  return "";
}

}  // namespace

std::string CheckLightgbmModelHeader(std::istream& in) {
  std::string line;
  if (!std::getline(in, line)) return "an empty file is no LightGBM model";
  TrimLineEnd(&line);
  if (line != "tree") return "no LightGBM text model (its first line is not 'tree')";
  for (int i = 0; i < kMaxHeaderLines && std::getline(in, line); ++i) {
    TrimLineEnd(&line);
    if (line.empty() || line.rfind("Tree=", 0) == 0) break;  // the header ended
    if (line.rfind("version=", 0) == 0) return CheckVersion(line.substr(8));
  }
  return "";
}

}  // namespace inferd::fil
