// The format version a LightGBM text model (model.txt) declares in its
// header ("version=v4"), read before LightGBM loads it: LightGBM itself
// ignores that line, so a model of a future format would load and could
// predict wrongly without a word. Pure; thread-safe.
#ifndef INFERD_BACKENDS_FIL_LIGHTGBM_MODEL_FILE_H_
#define INFERD_BACKENDS_FIL_LIGHTGBM_MODEL_FILE_H_

#include <istream>
#include <string>

namespace inferd::fil {

// The newest text format the fil backend's LightGBM 4 reads: v4 (LightGBM
// 4.x writes it; 2.x and 3.x wrote v3, earlier 2.x v2).
inline constexpr int kLightgbmNewestFormat = 4;

// Reads the header of the text model in `in` (the lines before the first
// tree) and returns "" when LightGBM 4 reads its format right: "version=vN"
// with N <= kLightgbmNewestFormat, or no version line (models before
// LightGBM 2 wrote none). Else why not: a newer or unreadable format,
// naming the line, or text that is no LightGBM model (its first line is
// not "tree").
std::string CheckLightgbmModelHeader(std::istream& in);

}  // namespace inferd::fil

#endif  // INFERD_BACKENDS_FIL_LIGHTGBM_MODEL_FILE_H_
