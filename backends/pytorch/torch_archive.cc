// What a PyTorch archive is, and refusals LibTorch would make less clearly
// or not at all (see torch_archive.h).
#include "torch_archive.h"

#include <charconv>
#include <vector>

#include "zip_directory.h"

namespace inferd::pytorch {
namespace {

// The record's path under the archive's one top folder ("code/__torch__.py"), or "".
std::string_view UnderFolder(std::string_view name) {
  const size_t slash = name.find('/');
  return slash == std::string_view::npos ? std::string_view() : name.substr(slash + 1);
}

// The version record's decimal number (PyTorch writes "3\n").
bool ParseVersion(std::string text, uint64_t* version) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, *version);
  return !text.empty() && ec == std::errc() && ptr == end;
}

std::string Format(const TorchArchive& archive) {
  return "TorchScript file format version " + std::to_string(archive.version);
}

}  // namespace

std::string ReadTorchArchive(std::istream& in, TorchArchive* archive) {
  *archive = TorchArchive{};
  std::vector<ZipEntry> entries;
  if (std::string err = ReadZipDirectory(in, &entries); !err.empty()) return err;
  const ZipEntry* version = nullptr;
  for (const ZipEntry& entry : entries) {
    const std::string_view record = UnderFolder(entry.name);
    if (record.rfind("code/", 0) == 0) archive->has_code = true;
    if (record == "data.pkl") archive->has_data_pkl = true;
    if (record == "archive_format") archive->is_pt2 = true;
    if (record == "version") version = &entry;
  }
  std::string text;
  if (version != nullptr && ReadStoredZipEntry(in, *version, 64, &text).empty()) {
    archive->has_version = ParseVersion(text, &archive->version);
  }
  return "";
}

std::string CheckTorchArchive(const TorchArchive& archive, const LibtorchInfo& libtorch) {
  const std::string libtorch_name = "LibTorch " + libtorch.version;
  if (archive.is_pt2) {
    return "a torch.export / AOTInductor archive (.pt2), which " + libtorch_name +
           " cannot run; save a TorchScript module (torch.jit.script or torch.jit.trace, then "
           ".save) or export to ONNX for the onnxruntime backend";
  }
  if (archive.has_data_pkl && !archive.has_code) {
    return "a torch.save() file (a pickled eager module or state_dict), not TorchScript; "
           "save the model with torch.jit.script(model).save(path) or torch.jit.trace";
  }
  if (archive.has_version && archive.version > libtorch.max_file_format) {
    return Format(archive) + ", newer than the " + std::to_string(libtorch.max_file_format) +
           " that " + libtorch_name + " reads (saved by a newer PyTorch)";
  }
  return "";
}

std::string ExplainTorchLoadFailure(const std::string& reason, const TorchArchive& archive,
                                    const LibtorchInfo& libtorch) {
  static constexpr std::string_view kUnknown[] = {
      "Unknown builtin op", "Unknown type", "Unknown keyword argument", "Unknown attribute",
      "Arguments for call are not valid", "Expected at most", "unknown builtin"};
  bool unknown = false;
  for (std::string_view marker : kUnknown) unknown = unknown || reason.find(marker) != reason.npos;
  if (!unknown || !archive.has_code) return reason;
  return reason + " (" + (archive.has_version ? Format(archive) + "; " : std::string()) +
         "LibTorch " + libtorch.version + " knows the operators of PyTorch " +
         libtorch.version + ": a module saved by a newer PyTorch loads when it uses only those)";
}

}  // namespace inferd::pytorch
