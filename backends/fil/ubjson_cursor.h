// A forward reader of Universal Binary JSON (ubjson.org, draft 12: the
// format XGBoost's .ubj models use), enough to walk a document's top-level
// object and read one member without building the document: optimized
// containers ('$' type, '#' count) are skipped in one step, so a model's
// large float arrays cost nothing. Every read is bounds-checked and nesting
// is limited, so any bytes are safe to give it. Not thread-safe.
#ifndef INFERD_BACKENDS_FIL_UBJSON_CURSOR_H_
#define INFERD_BACKENDS_FIL_UBJSON_CURSOR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace inferd::fil {

class UbjsonCursor {
 public:
  explicit UbjsonCursor(std::string_view bytes) : bytes_(bytes) {}

  // Calls `member(key)` for each member of the top-level object, with the
  // cursor at the member's value; `member` must consume it (SkipValue,
  // ReadIntegerArray) and return true to go on. Returns false when the bytes
  // are not such an object (error()) or `member` returned false.
  bool ForEachTopLevelMember(const std::function<bool(std::string_view key)>& member);

  // Skips the value at the cursor.
  bool SkipValue();
  // Reads an array of integers (of any integer type) at the cursor.
  bool ReadIntegerArray(std::vector<int64_t>* values);

  // What was wrong, with the byte offset.
  const std::string& error() const { return error_; }

 private:
  struct Container {
    char type = 0;       //!< '$': every element's type marker (no markers in the data)
    int64_t count = -1;  //!< '#': element count (no closing marker); -1: until it
  };

  bool Fail(const std::string& what);
  bool Byte(char* out);
  bool Integer(char marker, int64_t* out);
  bool Length(int64_t* out);  //!< a marker then a non-negative integer
  bool Advance(int64_t count);
  bool Header(Container* container);
  // Whether the container has another element; reads its marker into `*marker`.
  bool Next(const Container& container, char close, int64_t index, char* marker, bool* more);
  bool Skip(char marker, int depth);
  bool SkipContainer(char close, int depth);

  std::string_view bytes_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace inferd::fil

#endif  // INFERD_BACKENDS_FIL_UBJSON_CURSOR_H_
