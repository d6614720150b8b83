// Zip central directory reading (see zip_directory.h; PKWARE's APPNOTE 4.3).
#include "zip_directory.h"

#include <algorithm>

namespace inferd::pytorch {
namespace {

constexpr uint32_t kEndOfDirectory = 0x06054b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr uint32_t kZip64EndOfDirectory = 0x06064b50;
constexpr uint32_t kDirectoryEntry = 0x02014b50;
constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint64_t kMaxDirectorySize = uint64_t{256} << 20;  // far above any model's

uint64_t LittleEndian(const std::string& bytes, size_t at, int size) {
  uint64_t value = 0;
  for (int i = size - 1; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(bytes[at + i]);
  return value;
}

// `size` bytes at `offset`, or false.
bool ReadAt(std::istream& in, uint64_t offset, uint64_t size, std::string* out) {
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  out->assign(size, '\0');
  return in.read(out->data(), static_cast<std::streamsize>(size)) &&
         static_cast<uint64_t>(in.gcount()) == size;
}

struct Directory {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t file_size = 0;

  // Whether the directory lies inside the file: checked before it is read,
  // so a short file that claims a large directory costs no allocation.
  bool InsideFile() const {
    return offset <= file_size && size <= file_size - offset && size <= kMaxDirectorySize;
  }
};

// The zip64 end record's directory, when the end record defers to it.
std::string Zip64Directory(std::istream& in, uint64_t end_at, Directory* directory) {
  std::string bytes;
  if (end_at < 20 || !ReadAt(in, end_at - 20, 20, &bytes) ||
      LittleEndian(bytes, 0, 4) != kZip64Locator) {
    return "its end record defers to a zip64 record that is missing";
  }
  if (!ReadAt(in, LittleEndian(bytes, 8, 8), 56, &bytes) ||
      LittleEndian(bytes, 0, 4) != kZip64EndOfDirectory) {
    return "its zip64 end record is unreadable";
  }
  directory->offset = LittleEndian(bytes, 48, 8);
  directory->size = LittleEndian(bytes, 40, 8);
  return "";
}

std::string FindDirectory(std::istream& in, Directory* directory) {
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<uint64_t>(std::max<std::streamoff>(in.tellg(), 0));
  directory->file_size = file_size;
  const uint64_t tail_size = std::min<uint64_t>(file_size, 22 + 65535);  // record + comment
  std::string tail;
  if (tail_size < 22 || !ReadAt(in, file_size - tail_size, tail_size, &tail)) {
    return "not a zip archive (too short)";
  }
  for (size_t at = tail_size - 22;; --at) {
    if (LittleEndian(tail, at, 4) == kEndOfDirectory) {
      directory->offset = LittleEndian(tail, at + 16, 4);
      directory->size = LittleEndian(tail, at + 12, 4);
      if (directory->offset == 0xffffffff || directory->size == 0xffffffff) {
        return Zip64Directory(in, file_size - tail_size + at, directory);
      }
      return "";
    }
    if (at == 0) return "not a zip archive (no end of central directory record)";
  }
}

// The zip64 extra field's values for the fields the entry marks 0xffffffff.
void ApplyZip64Extra(const std::string& extra, uint64_t uncompressed, ZipEntry* entry) {
  for (size_t at = 0; at + 4 <= extra.size();) {
    const uint64_t id = LittleEndian(extra, at, 2);
    const uint64_t size = LittleEndian(extra, at + 2, 2);
    if (id == 1) {
      size_t field = at + 4;
      const size_t end = std::min(extra.size(), field + size);
      if (uncompressed == 0xffffffff && field + 8 <= end) field += 8;
      if (entry->compressed_size == 0xffffffff && field + 8 <= end) {
        entry->compressed_size = LittleEndian(extra, field, 8);
        field += 8;
      }
      if (entry->local_header_offset == 0xffffffff && field + 8 <= end) {
        entry->local_header_offset = LittleEndian(extra, field, 8);
      }
      return;
    }
    at += 4 + size;
  }
}

}  // namespace

std::string ReadZipDirectory(std::istream& in, std::vector<ZipEntry>* entries) {
  Directory directory;
  if (std::string err = FindDirectory(in, &directory); !err.empty()) return err;
  std::string bytes;
  if (!directory.InsideFile() || !ReadAt(in, directory.offset, directory.size, &bytes)) {
    return "not a zip archive (its central directory is outside the file)";
  }
  for (size_t at = 0; at + 46 <= bytes.size();) {
    if (LittleEndian(bytes, at, 4) != kDirectoryEntry) {
      return "not a zip archive (a damaged central directory)";
    }
    const size_t name_size = LittleEndian(bytes, at + 28, 2);
    const size_t extra_size = LittleEndian(bytes, at + 30, 2);
    const size_t comment_size = LittleEndian(bytes, at + 32, 2);
    if (at + 46 + name_size + extra_size + comment_size > bytes.size()) {
      return "not a zip archive (a damaged central directory)";
    }
    ZipEntry entry;
    entry.name = bytes.substr(at + 46, name_size);
    entry.method = static_cast<uint16_t>(LittleEndian(bytes, at + 10, 2));
    entry.compressed_size = LittleEndian(bytes, at + 20, 4);
    entry.local_header_offset = LittleEndian(bytes, at + 42, 4);
    ApplyZip64Extra(bytes.substr(at + 46 + name_size, extra_size), LittleEndian(bytes, at + 24, 4),
                    &entry);
    entries->push_back(std::move(entry));
    at += 46 + name_size + extra_size + comment_size;
  }
  return "";
}

std::string ReadStoredZipEntry(std::istream& in, const ZipEntry& entry, uint64_t max_size,
                               std::string* bytes) {
  if (entry.method != 0) return entry.name + " is compressed";
  if (entry.compressed_size > max_size) return entry.name + " is too large";
  std::string header;
  if (!ReadAt(in, entry.local_header_offset, 30, &header) ||
      LittleEndian(header, 0, 4) != kLocalHeader) {
    return entry.name + " has no local header";
  }
  const uint64_t data_at =
      entry.local_header_offset + 30 + LittleEndian(header, 26, 2) + LittleEndian(header, 28, 2);
  if (!ReadAt(in, data_at, entry.compressed_size, bytes)) return entry.name + " is truncated";
  return "";
}

}  // namespace inferd::pytorch
