// Fuzz target: a PyTorch model file's zip central directory and version
// record (backends/pytorch), read before LibTorch sees the file, and the
// refusal made from them; then every stored entry the directory names, read
// as the version record is, so each offset and size of the directory is
// tried against the file.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "pytorch/torch_archive.h"
#include "pytorch/zip_directory.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  inferd::pytorch::TorchArchive archive;
  if (inferd::pytorch::ReadTorchArchive(in, &archive).empty()) {
    (void)inferd::pytorch::CheckTorchArchive(archive, {"1.13.0", 10});
    (void)inferd::pytorch::ExplainTorchLoadFailure("Unknown builtin op: aten::x", archive,
                                                   {"1.13.0", 10});
  }
  std::vector<inferd::pytorch::ZipEntry> entries;
  if (!inferd::pytorch::ReadZipDirectory(in, &entries).empty()) return 0;
  std::string bytes;
  for (const inferd::pytorch::ZipEntry& entry : entries) {
    (void)inferd::pytorch::ReadStoredZipEntry(in, entry, 4096, &bytes);
  }
  return 0;
}
