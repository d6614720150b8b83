// Walking UBJSON (see ubjson_cursor.h).
#include "ubjson_cursor.h"

namespace inferd::fil {
namespace {

constexpr int kMaxDepth = 64;  // XGBoost's models nest 6 deep

// Bytes of a fixed-size value of type `marker`, 0 for one without payload,
// -1 for a variable-size or unknown one.
int FixedSize(char marker) {
  switch (marker) {
    case 'Z': case 'N': case 'T': case 'F': return 0;
    case 'i': case 'U': case 'C': return 1;
    case 'I': return 2;
    case 'l': case 'd': return 4;
    case 'L': case 'D': return 8;
    default: return -1;
  }
}

}  // namespace

bool UbjsonCursor::Fail(const std::string& what) {
  if (error_.empty()) error_ = what + " at byte " + std::to_string(pos_);
  return false;
}

bool UbjsonCursor::Byte(char* out) {
  if (pos_ >= bytes_.size()) return Fail("unexpected end");
  *out = bytes_[pos_++];
  return true;
}

bool UbjsonCursor::Integer(char marker, int64_t* out) {
  const int size = FixedSize(marker);
  if (size <= 0 || marker == 'd' || marker == 'D' || marker == 'C') {
    return Fail(std::string("type '") + marker + "' where an integer belongs");
  }
  if (bytes_.size() - pos_ < static_cast<size_t>(size)) return Fail("unexpected end");
  uint64_t value = 0;  // big-endian
  for (int i = 0; i < size; ++i) value = (value << 8) | static_cast<uint8_t>(bytes_[pos_ + i]);
  pos_ += static_cast<size_t>(size);
  if (marker == 'U') {
    *out = static_cast<int64_t>(value);
  } else {  // sign-extend
    const int shift = 64 - 8 * size;
    *out = static_cast<int64_t>(value << shift) >> shift;
  }
  return true;
}

bool UbjsonCursor::Length(int64_t* out) {
  char marker = 0;
  if (!Byte(&marker) || !Integer(marker, out)) return false;
  return *out >= 0 || Fail("negative length");
}

bool UbjsonCursor::Advance(int64_t count) {
  if (count < 0 || static_cast<uint64_t>(count) > bytes_.size() - pos_) {
    return Fail("unexpected end");
  }
  pos_ += static_cast<size_t>(count);
  return true;
}

bool UbjsonCursor::Header(Container* container) {
  if (pos_ < bytes_.size() && bytes_[pos_] == '$') {
    ++pos_;
    if (!Byte(&container->type)) return false;
    if (pos_ >= bytes_.size() || bytes_[pos_] != '#') return Fail("'$' without '#'");
  }
  if (pos_ < bytes_.size() && bytes_[pos_] == '#') {
    ++pos_;
    return Length(&container->count);
  }
  return true;
}

bool UbjsonCursor::Next(const Container& container, char close, int64_t index, char* marker,
                        bool* more) {
  if (container.count >= 0) {
    *more = index < container.count;
    if (*more && container.type != 0) *marker = container.type;
    return !*more || container.type != 0 || Byte(marker);
  }
  if (!Byte(marker)) return false;
  *more = *marker != close;
  return true;
}

bool UbjsonCursor::SkipContainer(char close, int depth) {
  Container container;
  if (!Header(&container)) return false;
  const int size = FixedSize(container.type);
  if (close == ']' && container.count >= 0 && size >= 0) {
    if (container.count > static_cast<int64_t>(bytes_.size())) return Fail("unexpected end");
    return Advance(container.count * size);  // e.g. a typed float array, in one step
  }
  char marker = 0;
  bool more = true;
  for (int64_t i = 0;; ++i) {
    if (close == '}') {  // a key: its length without a marker of its own, then its bytes
      if (container.count < 0) {
        if (pos_ < bytes_.size() && bytes_[pos_] == '}') return Advance(1);
      } else if (i >= container.count) {
        return true;
      }
      int64_t key = 0;
      if (!Length(&key) || !Advance(key)) return false;
    }
    if (!Next(container, close, i, &marker, &more)) return false;
    if (!more) return true;
    if (!Skip(marker, depth + 1)) return false;
  }
}

bool UbjsonCursor::Skip(char marker, int depth) {
  if (depth > kMaxDepth) return Fail("nesting deeper than " + std::to_string(kMaxDepth));
  if (const int size = FixedSize(marker); size >= 0) return Advance(size);
  if (marker == 'S' || marker == 'H') {
    int64_t length = 0;
    return Length(&length) && Advance(length);
  }
  if (marker == '[') return SkipContainer(']', depth);
  if (marker == '{') return SkipContainer('}', depth);
  --pos_;
  return Fail(std::string("unknown type marker '") + marker + "'");
}

bool UbjsonCursor::SkipValue() {
  char marker = 0;
  return Byte(&marker) && Skip(marker, 1);
}

bool UbjsonCursor::ReadIntegerArray(std::vector<int64_t>* values) {
  char marker = 0;
  if (!Byte(&marker)) return false;
  if (marker != '[') return Fail("an array expected");
  Container container;
  if (!Header(&container)) return false;
  bool more = true;
  for (int64_t i = 0;; ++i) {
    if (!Next(container, ']', i, &marker, &more)) return false;
    if (!more) return true;
    int64_t value = 0;
    if (!Integer(marker, &value)) return false;
    values->push_back(value);
  }
}

bool UbjsonCursor::ForEachTopLevelMember(
    const std::function<bool(std::string_view key)>& member) {
  char marker = 0;
  if (!Byte(&marker)) return false;
  if (marker != '{') return Fail("an object expected");
  Container container;
  if (!Header(&container)) return false;
  for (int64_t i = 0; container.count < 0 || i < container.count; ++i) {
    if (container.count < 0 && pos_ < bytes_.size() && bytes_[pos_] == '}') return true;
    int64_t length = 0;
    if (!Length(&length)) return false;
    const size_t key_at = pos_;
    if (!Advance(length)) return false;
    if (container.type != 0) return Fail("a typed object at the top level");
    if (!member(bytes_.substr(key_at, static_cast<size_t>(length)))) return false;
  }
  return true;
}

}  // namespace inferd::fil
