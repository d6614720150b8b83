#include "core/repository/model_repository.h"

#include <algorithm>
#include <charconv>
#include <map>

namespace inferd {

std::string ModelKey(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

std::string NameOfKey(const std::string& key) {
  const size_t slash = key.rfind('/');
  return slash == std::string::npos ? key : key.substr(slash + 1);
}

namespace {

std::string NamespaceOf(const std::filesystem::path& root) {
  std::string ns = root.string();
  while (ns.size() > 1 && ns.back() == '/') ns.pop_back();
  return ns;
}

}  // namespace

StatusOr<std::vector<ModelLocation>> ScanRepositories(
    const std::vector<std::filesystem::path>& roots, bool namespacing) {
  // By name, then namespace ("" without namespacing).
  std::map<std::pair<std::string, std::string>, ModelLocation> found;
  for (const std::filesystem::path& root : roots) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) {
      return Status::InvalidArg("model repository '" + root.string() +
                                "' is not a folder (or cannot be read)");
    }
    for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.empty() || name[0] == '.' || !entry.is_directory(ec)) continue;
      const std::string ns = namespacing ? NamespaceOf(root) : "";
      auto [it, inserted] =
          found.try_emplace({name, ns}, ModelLocation{name, entry.path(), "", ns});
      if (!inserted) {
        it->second.error = "model '" + name + "' appears in more than one repository (" +
                           it->second.dir.string() + " and " + entry.path().string() +
                           "); a model name must be unique across repositories";
      }
    }
    if (ec) {
      return Status::InvalidArg("cannot read model repository '" + root.string() +
                                "': " + ec.message());
    }
  }
  std::vector<ModelLocation> models;
  models.reserve(found.size());
  for (auto& [id, location] : found) models.push_back(std::move(location));
  return models;
}

std::vector<int64_t> ListVersionFolders(const std::filesystem::path& model_dir) {
  std::vector<int64_t> versions;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(model_dir, ec)) {
    if (!entry.is_directory(ec)) continue;
    const std::string name = entry.path().filename().string();
    int64_t version = 0;
    auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), version);
    if (err == std::errc() && end == name.data() + name.size() && version > 0) {
      versions.push_back(version);
    }
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

}  // namespace inferd
