// ModelLifecycle: where a model's folder is, and which model a name means with
// --model-namespacing.
#include <algorithm>

#include "core/lifecycle/model_lifecycle.h"

namespace inferd {
namespace {

std::string Ambiguous(std::string_view name, const std::vector<std::string>& keys) {
  std::string repositories;
  for (const std::string& key : keys) {
    const std::string ns = key.substr(0, key.size() - std::min(key.size(), name.size() + 1));
    repositories += (repositories.empty() ? "'" : ", '") + ns + "'";
  }
  return "model '" + std::string(name) + "' is ambiguous: " + std::to_string(keys.size()) +
         " repositories hold a model of that name (" + repositories +
         ") and --model-namespacing keeps them apart; a request cannot choose one, an "
         "ensemble's steps run the model of the ensemble's own repository";
}

}  // namespace

StatusOr<std::vector<ModelLocation>> ModelLifecycle::LocateAll(const std::string& name) const {
  ASSIGN_OR_RETURN(std::vector<ModelLocation> found, options_.source->Find(name));
  if (found.empty()) return Status::NotFound("model '" + name + "' is not in any model repository");
  return found;
}

StatusOr<ModelLocation> ModelLifecycle::Locate(const std::string& name,
                                               const std::string& ns) const {
  ASSIGN_OR_RETURN(std::vector<ModelLocation> found, LocateAll(name));
  std::vector<std::string> keys;
  for (ModelLocation& location : found) {
    if (location.ns == ns) return std::move(location);
    keys.push_back(ModelKey(location.ns, location.name));
  }
  if (found.size() == 1) return std::move(found.front());
  return Status::InvalidArg(Ambiguous(name, keys));
}

StatusOr<ModelLocation> ModelLifecycle::LocateKey(const std::string& key) const {
  ASSIGN_OR_RETURN(std::vector<ModelLocation> found, LocateAll(NameOfKey(key)));
  for (ModelLocation& location : found) {
    if (ModelKey(location.ns, location.name) == key) return std::move(location);
  }
  return Status::NotFound(DescribeModelKey(key) + " is not in its model repository");
}

StatusOr<std::string> ModelLifecycle::KeyOf(std::string_view name, std::string_view ns) const {
  if (!options_.namespacing) return std::string(name);
  std::shared_ptr<const KeysByName> index = keys_by_name_.load(std::memory_order_acquire);
  auto found = index->find(name);
  if (found == index->end()) return std::string(name);
  const std::vector<std::string>& live = found->second.live;
  if (!ns.empty()) {
    const std::string preferred = ModelKey(std::string(ns), std::string(name));
    const std::vector<std::string>& all = found->second.all;
    if (std::find(all.begin(), all.end(), preferred) != all.end()) return preferred;
  }
  if (live.size() == 1) return live.front();
  if (live.empty()) return found->second.all.front();  // none loaded: says so
  return Status::InvalidArg(Ambiguous(name, live));
}

std::string ModelLifecycle::ComposingNamespace(const std::string& ns,
                                               const std::string& step) const {
  StatusOr<ModelLocation> where = Locate(step, ns);
  if (where.ok()) return where->ns;
  StatusOr<std::string> key = KeyOf(step, ns);  // loaded, its folder gone since
  if (key.ok() && key->size() > step.size()) return key->substr(0, key->size() - step.size() - 1);
  return ns;
}

}  // namespace inferd
