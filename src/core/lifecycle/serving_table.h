// What serves (TF Serving's ServingMap): the READY versions of every model,
// less the ensembles whose composing models do not all serve, built from the
// records as an immutable table that lookups read without a lock; and, with
// --model-namespacing, which models answer to each name. Pure functions.
#ifndef INFERD_CORE_LIFECYCLE_SERVING_TABLE_H_
#define INFERD_CORE_LIFECYCLE_SERVING_TABLE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/lifecycle/model_record.h"

namespace inferd {

// Model key -> version -> the READY version.
using ServingTable =
    std::map<std::string, std::map<int64_t, std::shared_ptr<ModelVersion>>, std::less<>>;

// READY ensemble versions left out of the table -> why.
using BlockedEnsembles = std::map<std::pair<std::string, int64_t>, std::string>;

struct ServingSnapshot {
  std::shared_ptr<ServingTable> table;
  BlockedEnsembles blocked;
};

ServingSnapshot BuildServingTable(const ModelRecords& records);

// Model name -> the keys of the models of that name that are loaded or asked
// for (`live`: a request chooses among them, as Triton among the models its
// dependency graph holds), and of all that are known.
struct NameKeys {
  std::vector<std::string> live;
  std::vector<std::string> all;
};
using KeysByName = std::map<std::string, NameKeys, std::less<>>;

std::shared_ptr<KeysByName> BuildKeysByName(const ModelRecords& records);

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_SERVING_TABLE_H_
