#include "core/lifecycle/override_folder.h"

#include <stdlib.h>

#include <fstream>

namespace inferd {

Status CheckRelativePath(const std::string& relative) {
  const std::filesystem::path path(relative);
  if (relative.empty() || path.is_absolute() || relative.find('\0') != std::string::npos) {
    return Status::InvalidArg("file override '" + relative +
                              "' must be a relative path inside the model folder");
  }
  if (path.filename().empty() || path.filename() == ".") {
    return Status::InvalidArg("file override '" + relative + "' must name a file, not a folder");
  }
  for (const auto& part : path) {
    if (part == ".." ) {
      return Status::InvalidArg("file override '" + relative +
                                "' may not leave the model folder with '..'");
    }
  }
  return Status::Ok();
}

StatusOr<std::filesystem::path> WriteOverrideFolder(
    const std::string& model, const std::map<std::string, std::string>& files) {
  for (const auto& [relative, content] : files) RETURN_IF_ERROR(CheckRelativePath(relative));
  if (model.empty() || model.find('/') != std::string::npos || model == "..") {
    return Status::InvalidArg("invalid model name '" + model + "' for file overrides");
  }
  std::string pattern = (std::filesystem::temp_directory_path() / "inferd-model-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return Status::Internal("cannot create a temporary folder for model '" + model + "'");
  }
  const std::filesystem::path root(pattern);
  for (const auto& [relative, content] : files) {
    const std::filesystem::path target = root / model / relative;
    std::error_code ec;
    std::filesystem::create_directories(target.parent_path(), ec);
    std::ofstream out(target, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (ec || !out) {
      RemoveOverrideFolder(root);
      return Status::Internal("cannot write file override '" + relative + "' for model '" +
                              model + "'");
    }
  }
  return root;
}

void RemoveOverrideFolder(const std::filesystem::path& folder) {
  if (folder.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(folder, ec);
}

}  // namespace inferd
