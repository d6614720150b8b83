#include "core/repository/model_fingerprint.h"

#include <charconv>
#include <string>

namespace inferd {
namespace {

// FNV-1a over bytes, folded into `hash`.
void Mix(uint64_t& hash, const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 1099511628211ull;
  }
}

void MixEntry(uint64_t& hash, const std::filesystem::directory_entry& entry,
              const std::filesystem::path& base) {
  std::error_code ec;
  // Lexically: every entry lies under `base` (std::filesystem::relative would
  // canonicalize both paths, a readlink per path component, for each file).
  const std::string relative = entry.path().lexically_relative(base).string();
  Mix(hash, relative.data(), relative.size());
  if (entry.is_symlink(ec)) {  // a link pointed elsewhere is a change
    const std::string target = std::filesystem::read_symlink(entry.path(), ec).string();
    Mix(hash, target.data(), target.size());
  }
  const uint64_t size = entry.is_regular_file(ec) ? entry.file_size(ec) : 0;
  const auto mtime = entry.last_write_time(ec).time_since_epoch().count();
  Mix(hash, &size, sizeof(size));
  Mix(hash, &mtime, sizeof(mtime));
}

// Hash of everything under `dir`, recursively.
uint64_t HashTree(const std::filesystem::path& dir, const std::filesystem::path& base) {
  uint64_t hash = 14695981039346656037ull;
  std::error_code ec;
  std::map<std::string, std::filesystem::directory_entry> sorted;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    sorted.emplace(it->path().string(), *it);
  }
  for (const auto& [path, entry] : sorted) MixEntry(hash, entry, base);
  return hash;
}

bool IsVersionFolder(const std::filesystem::directory_entry& entry, int64_t* version) {
  std::error_code ec;
  if (!entry.is_directory(ec)) return false;
  const std::string name = entry.path().filename().string();
  auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), *version);
  return err == std::errc() && end == name.data() + name.size() && *version > 0;
}

}  // namespace

ModelFingerprint FingerprintModel(const std::filesystem::path& model_dir) {
  ModelFingerprint fingerprint;
  fingerprint.top = 14695981039346656037ull;
  std::error_code ec;
  std::map<std::string, std::filesystem::directory_entry> sorted;
  for (const auto& entry : std::filesystem::directory_iterator(model_dir, ec)) {
    sorted.emplace(entry.path().filename().string(), entry);
  }
  for (const auto& [name, entry] : sorted) {
    int64_t version = 0;
    if (IsVersionFolder(entry, &version)) {
      fingerprint.versions[version] = HashTree(entry.path(), model_dir);
      continue;
    }
    MixEntry(fingerprint.top, entry, model_dir);
    if (entry.is_directory(ec)) {
      const uint64_t sub = HashTree(entry.path(), model_dir);
      Mix(fingerprint.top, &sub, sizeof(sub));
    }
  }
  return fingerprint;
}

}  // namespace inferd
