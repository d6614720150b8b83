// What a model file says about itself before LibTorch reads it. A file that
// torch.jit.save, torch.save and torch.export.save write is a zip archive of
// records under one folder: TorchScript has code/ (the module's TorchScript
// source) and "version", the TorchScript file format version, which newer
// PyTorch raises when a module uses operators whose meaning changed (torch 2.x
// writes 3 to 10; LibTorch 1.13 reads 1 to 10). torch.save (a pickled eager
// module or state_dict) has no code/, torch.export's .pt2 has archive_format.
// Read from the zip's central directory, without LibTorch, so a refusal can
// name what the file is and its version. Pure; thread-safe.
#ifndef INFERD_BACKENDS_PYTORCH_TORCH_ARCHIVE_H_
#define INFERD_BACKENDS_PYTORCH_TORCH_ARCHIVE_H_

#include <cstdint>
#include <istream>
#include <string>

namespace inferd::pytorch {

struct TorchArchive {
  bool has_version = false;
  uint64_t version = 0;  //!< the "<folder>/version" record
  bool has_code = false;      //!< "<folder>/code/...": TorchScript
  bool has_data_pkl = false;  //!< "<folder>/data.pkl"
  bool is_pt2 = false;        //!< "<folder>/archive_format": torch.export / AOTInductor
};

// The LibTorch the backend runs, for messages and the version check.
struct LibtorchInfo {
  std::string version;         //!< "1.13.0"
  uint64_t max_file_format = 0;  //!< caffe2::serialize::kMaxSupportedFileFormatVersion
};

// Reads the records of the zip archive in `in` (zip64 too) and its version
// record. Returns "" or why it is no zip archive (LibTorch says it as well).
std::string ReadTorchArchive(std::istream& in, TorchArchive* archive);

// "" when LibTorch should load the archive; else why it is refused: a file
// format version newer than LibTorch reads, a torch.export .pt2 archive, or
// a torch.save file (no TorchScript), each naming what to do instead.
std::string CheckTorchArchive(const TorchArchive& archive, const LibtorchInfo& libtorch);

// LibTorch's (trimmed) reason for not loading a TorchScript archive, with
// the file's format version and LibTorch's version when the reason is
// something LibTorch does not know (an operator, type or argument of a newer
// PyTorch).
std::string ExplainTorchLoadFailure(const std::string& reason, const TorchArchive& archive,
                                    const LibtorchInfo& libtorch);

}  // namespace inferd::pytorch

#endif  // INFERD_BACKENDS_PYTORCH_TORCH_ARCHIVE_H_
