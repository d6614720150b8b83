// Reading model repositories from disk: which model folders exist (across one
// or more repository roots) and which numeric version folders each holds.
// Nothing here loads anything. Stateless functions; thread-safe.
#ifndef INFERD_CORE_REPOSITORY_MODEL_REPOSITORY_H_
#define INFERD_CORE_REPOSITORY_MODEL_REPOSITORY_H_

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "inferd/base/status.h"

namespace inferd {

// A model folder found in a repository.
struct ModelLocation {
  std::string name;
  std::filesystem::path dir;  // <repository>/<name>
  // Set when the model cannot be used as found, e.g. the same name in two
  // repositories; the model is then UNAVAILABLE with this reason.
  std::string error;
  // With namespacing, the repository root it was found in (trailing '/'
  // removed); empty without. Models are identified by (ns, name).
  std::string ns;
};

// The key a model is known by: `name` without a namespace, else
// "<ns>/<name>" (the model folder's path, so unique). A name holds no '/'.
std::string ModelKey(const std::string& ns, const std::string& name);
// The model name in a key.
std::string NameOfKey(const std::string& key);
// How messages name the model of `key`: "model 'm'", or "model 'm' of
// repository '/r'" for a namespaced key.
std::string DescribeModelKey(std::string_view key);

// Every model folder under `roots`, sorted by name (then namespace). A root
// that is not a readable folder is an error for the whole scan. Hidden folders
// are skipped. Without `namespacing`, a name in two roots is one location with
// `error` set; with it, one location per root, each with its root as `ns`.
StatusOr<std::vector<ModelLocation>> ScanRepositories(
    const std::vector<std::filesystem::path>& roots, bool namespacing = false);

// ScanRepositories's locations of model `name` only, found by looking at
// <root>/<name> in each root instead of listing every folder: a load asks for
// one model, and in a repository of thousands each load listed them all. A
// name no model folder can have ("", ".hidden", "a/b", "..") finds none.
StatusOr<std::vector<ModelLocation>> FindModelFolders(
    const std::vector<std::filesystem::path>& roots, const std::string& name,
    bool namespacing = false);

// The numeric version folders inside `model_dir`, ascending. Other entries are
// ignored, as Triton does.
std::vector<int64_t> ListVersionFolders(const std::filesystem::path& model_dir);

}  // namespace inferd

#endif  // INFERD_CORE_REPOSITORY_MODEL_REPOSITORY_H_
