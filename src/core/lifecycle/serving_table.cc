#include "core/lifecycle/serving_table.h"

#include "core/lifecycle/ensemble_dependencies.h"
#include "core/model/model_version.h"
#include "core/repository/model_repository.h"

namespace inferd {
namespace {

bool Serves(const ServingTable& table, const std::string& name, int64_t version) {
  auto model = table.find(name);
  if (model == table.end() || model->second.empty()) return false;
  return version < 0 || model->second.contains(version);
}

// Why ensemble `model` cannot serve from `table`: the first composing model
// its steps run that the table lacks; empty when it can.
std::string MissingComposing(const ModelVersion& model, const ServingTable& table) {
  const auto& steps = model.config().ensemble_scheduling().step();
  for (int i = 0; i < steps.size(); ++i) {
    if (!Serves(table, StepKey(steps[i]), steps[i].model_version())) {
      return "composing model '" + steps[i].model_name() + "' (step[" + std::to_string(i) +
             "]) is not ready";
    }
  }
  return "";
}

}  // namespace

ServingSnapshot BuildServingTable(const ModelRecords& records) {
  ServingSnapshot snapshot{std::make_shared<ServingTable>(), {}};
  ServingTable& table = *snapshot.table;
  for (const auto& [name, record] : records) {
    for (const auto& [version, v] : record.versions) {
      if (v.model && v.state == ModelState::kReady) table[name][version] = v.model;
    }
  }
  // An ensemble serves only while every model its steps run does; removing
  // one may stop an ensemble that nests it, hence the loop.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto model = table.begin(); model != table.end();) {
      for (auto version = model->second.begin(); version != model->second.end();) {
        const std::string missing =
            version->second->is_ensemble() ? MissingComposing(*version->second, table) : "";
        if (missing.empty()) {
          ++version;
          continue;
        }
        snapshot.blocked[{model->first, version->first}] = missing;
        version = model->second.erase(version);
        changed = true;
      }
      model = model->second.empty() ? table.erase(model) : std::next(model);
    }
  }
  return snapshot;
}

std::shared_ptr<KeysByName> BuildKeysByName(const ModelRecords& records) {
  auto index = std::make_shared<KeysByName>();
  for (const auto& [key, record] : records) {
    NameKeys& keys = (*index)[NameOfKey(key)];
    keys.all.push_back(key);
    if (record.aspired || !record.versions.empty()) keys.live.push_back(key);
  }
  return index;
}

}  // namespace inferd
