// What an XGBoost model file says about itself before any XGBoost reads it:
// its serialization format (from its first bytes, as XGBoost itself tells
// them apart) and the XGBoost version that wrote it (the JSON and UBJSON
// models' top-level "version": [major, minor, patch]; the legacy binary
// format's header fields major_version and minor_version). The fil backend
// picks the library that reads the file right from these, or refuses it
// (ChooseXgboostReader). Pure; thread-safe.
#ifndef INFERD_BACKENDS_FIL_XGBOOST_MODEL_FILE_H_
#define INFERD_BACKENDS_FIL_XGBOOST_MODEL_FILE_H_

#include <string>
#include <string_view>

namespace inferd::fil {

enum class XgboostFormat { kLegacyBinary, kJson, kUbjson };

struct XgboostVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;

  // Release order on (major, minor): a patch release reads what its minor does.
  bool NewerThan(const XgboostVersion& other) const {
    return major != other.major ? major > other.major : minor > other.minor;
  }
  std::string ToString() const;  //!< "3.2.0"
};

struct XgboostModelFile {
  XgboostFormat format = XgboostFormat::kLegacyBinary;
  bool has_version = false;  //!< false: no version record (a legacy file without "binf")
  XgboostVersion version;
};

// Reads the format and version from a model file's bytes. Returns "" on
// success, else why the bytes are no XGBoost model of their format (JSON or
// UBJSON that does not parse, naming the byte offset). A legacy binary file
// too short for its header, or without the "binf" mark of XGBoost 0.82 and
// later, has no version (XGBoost's own reader judges it).
std::string ReadXgboostModelFile(std::string_view bytes, XgboostModelFile* file);

// "legacy binary", "JSON", "UBJSON".
const char* XgboostFormatName(XgboostFormat format);

// The libraries the fil backend has: Debian's XGBoost (linked; 1.7) and the
// newer one from third_party/xgboost (opened at run time), when it opened.
struct XgboostLibraries {
  XgboostVersion linked;
  bool bundled_available = false;
  XgboostVersion bundled;
  std::string bundled_error;  //!< why it is not available
};

enum class XgboostReader { kLinked, kBundled };

// Picks the library that reads `file` right: the legacy binary format with
// the linked XGBoost (XGBoost 3.1 removed it; 1.7 reads what 0.82 to 3.0
// wrote); JSON and UBJSON with the bundled XGBoost, which reads what every
// version up to its own wrote (1.7 misreads 2.1 and later: base_score), or
// with the linked one when the file is no newer than it and the bundled one
// is missing. Returns "" and sets `*reader`, or why the file is refused,
// naming the file's version and the library's.
std::string ChooseXgboostReader(const XgboostModelFile& file, const XgboostLibraries& libraries,
                                XgboostReader* reader);

}  // namespace inferd::fil

#endif  // INFERD_BACKENDS_FIL_XGBOOST_MODEL_FILE_H_
