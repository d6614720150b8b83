// Reading a zip archive's central directory and a small stored record, as
// PyTorch's archives (miniz: records stored, zip64 past 4 GiB) are laid out;
// enough to tell what a model file is without LibTorch (torch_archive.h).
// Every offset and size is checked against the file. Pure; thread-safe.
#ifndef INFERD_BACKENDS_PYTORCH_ZIP_DIRECTORY_H_
#define INFERD_BACKENDS_PYTORCH_ZIP_DIRECTORY_H_

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace inferd::pytorch {

struct ZipEntry {
  std::string name;
  uint16_t method = 0;  //!< 0: stored
  uint64_t compressed_size = 0;
  uint64_t local_header_offset = 0;
};

// The entries of the zip archive in `in`. Returns "" or why it is no zip
// archive (no end of central directory record, truncated, ...).
std::string ReadZipDirectory(std::istream& in, std::vector<ZipEntry>* entries);

// The bytes of a stored entry of at most `max_size` bytes. Returns "" or why
// they cannot be read.
std::string ReadStoredZipEntry(std::istream& in, const ZipEntry& entry, uint64_t max_size,
                               std::string* bytes);

}  // namespace inferd::pytorch

#endif  // INFERD_BACKENDS_PYTORCH_ZIP_DIRECTORY_H_
