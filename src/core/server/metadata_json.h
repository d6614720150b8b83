// JSON documents of the KServe v2 metadata and repository extensions: server
// metadata, model metadata and the repository index. Pure functions.
#ifndef INFERD_CORE_SERVER_METADATA_JSON_H_
#define INFERD_CORE_SERVER_METADATA_JSON_H_

#include <string>
#include <vector>

#include "core/lifecycle/model_state.h"
#include "model_config.pb.h"

namespace inferd {

// {"name","version","extensions":[...]}
std::string ServerMetadataJson(const std::string& name, const std::string& version,
                               const std::vector<std::string>& extensions);
// {"name","versions":["1",...],"platform","inputs":[...],"outputs":[...]}; a
// batching model's shapes start with -1.
std::string ModelMetadataJson(const inference::ModelConfig& config,
                              const std::vector<int64_t>& versions);
// [{"name","version","state","reason"}, ...]
std::string IndexJson(const std::vector<IndexEntry>& index, bool ready_only);

}  // namespace inferd

#endif  // INFERD_CORE_SERVER_METADATA_JSON_H_
