// The model configuration as inferd tune sees it: the JSON the server
// answers at GET /v2/models/{m}/config, the Setting it holds, the override
// that applies another Setting (the same JSON with three fields changed,
// sent as the repository API's "config" parameter, as Triton's tools do),
// and the config.pbtxt lines a user copies to keep a Setting.
#ifndef INFERD_TOOLS_TUNE_CONFIG_OVERRIDE_H_
#define INFERD_TOOLS_TUNE_CONFIG_OVERRIDE_H_

#include <string>

#include "tune/search_space.h"

namespace inferd::tune {

// What the configuration says about tuning.
struct ConfigFacts {
  Setting setting;             // its current values (queue delay 0 without dynamic_batching)
  bool batches = false;        // max_batch_size > 0: batch size and queue delay can be tuned
  bool dynamic_batching = false;
};

// Reads `config_json`. Returns "" or an error naming the model and why tune
// cannot vary it (not JSON, an ensemble, a sequence batcher, no instance group).
std::string ReadConfigFacts(const std::string& model, const std::string& config_json,
                            ConfigFacts* facts);

// `config_json` with `setting` applied: max_batch_size, the dynamic batcher's
// max_queue_delay_microseconds (the batcher added when missing) with preferred
// batch sizes above the new maximum dropped, and every instance group's count.
// A model that does not batch keeps its batching fields. Returns "" or an error.
std::string OverrideConfig(const std::string& config_json, const Setting& setting,
                           std::string* override_json);

// The config.pbtxt lines that keep `setting` (replacing the same fields of
// the model's config.pbtxt), e.g.
//   max_batch_size: 32
//   dynamic_batching { max_queue_delay_microseconds: 2000 }
//   instance_group [ { count: 2, kind: KIND_CPU } ]
std::string ConfigSnippet(const std::string& config_json, const Setting& setting);

}  // namespace inferd::tune

#endif  // INFERD_TOOLS_TUNE_CONFIG_OVERRIDE_H_
