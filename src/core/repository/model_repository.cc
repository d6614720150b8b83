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

std::string DescribeModelKey(std::string_view key) {
  const std::string name = NameOfKey(std::string(key));
  if (name.size() == key.size()) return "model '" + name + "'";
  return "model '" + name + "' of repository '" +
         std::string(key.substr(0, key.size() - name.size() - 1)) + "'";
}

namespace {

std::string NamespaceOf(const std::filesystem::path& root) {
  std::string ns = root.string();
  while (ns.size() > 1 && ns.back() == '/') ns.pop_back();
  return ns;
}

Status NotAFolder(const std::filesystem::path& root) {
  return Status::InvalidArg("model repository '" + root.string() +
                            "' is not a folder (or cannot be read)");
}

std::string InSeveralRepositories(const std::string& name, const std::filesystem::path& first,
                                  const std::filesystem::path& second) {
  return "model '" + name + "' appears in more than one repository (" + first.string() + " and " +
         second.string() + "); a model name must be unique across repositories";
}

}  // namespace

StatusOr<std::vector<ModelLocation>> ScanRepositories(
    const std::vector<std::filesystem::path>& roots, bool namespacing) {
  // By name, then namespace ("" without namespacing).
  std::map<std::pair<std::string, std::string>, ModelLocation> found;
  for (const std::filesystem::path& root : roots) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) return NotAFolder(root);
    for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.empty() || name[0] == '.' || !entry.is_directory(ec)) continue;
      const std::string ns = namespacing ? NamespaceOf(root) : "";
      auto [it, inserted] =
          found.try_emplace({name, ns}, ModelLocation{name, entry.path(), "", ns});
      if (!inserted) it->second.error = InSeveralRepositories(name, it->second.dir, entry.path());
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

StatusOr<std::vector<ModelLocation>> FindModelFolders(
    const std::vector<std::filesystem::path>& roots, const std::string& name, bool namespacing) {
  const bool folder_name = !name.empty() && name[0] != '.' &&
                           name.find_first_of(std::string_view("/\0", 2)) == std::string::npos;
  std::vector<ModelLocation> found;
  for (const std::filesystem::path& root : roots) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) return NotAFolder(root);
    if (!folder_name) continue;
    std::filesystem::path dir = root / name;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    if (!namespacing && !found.empty()) {
      found.front().error = InSeveralRepositories(name, found.front().dir, dir);
      continue;
    }
    found.push_back(ModelLocation{name, std::move(dir), "", namespacing ? NamespaceOf(root) : ""});
  }
  std::sort(found.begin(), found.end(),
            [](const ModelLocation& a, const ModelLocation& b) { return a.ns < b.ns; });
  return found;
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
