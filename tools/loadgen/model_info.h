// What the load generator needs to know about a model: its inputs and outputs
// (name, datatype, shape as the metadata reports it, -1 for a variable
// dimension) and whether it batches. Filled from the HTTP metadata and config
// JSON here, or from the gRPC messages by grpc_client.cc.
#ifndef INFERD_TOOLS_LOADGEN_MODEL_INFO_H_
#define INFERD_TOOLS_LOADGEN_MODEL_INFO_H_

#include <cstdint>
#include <string>
#include <vector>

namespace inferd::loadgen {

struct TensorSpec {
  std::string name;
  std::string datatype;        // KServe v2 name: FP32, INT64, BYTES, ...
  std::vector<int64_t> shape;  // -1 = variable
};

struct ModelInfo {
  std::string name;
  int64_t max_batch_size = 0;  // 0 = the model does not batch
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
};

// Parses GET /v2/models/{m} (metadata) and GET /v2/models/{m}/config bodies.
// `config_json` may be "" (max_batch_size then stays 0 unless the metadata's
// first dimensions are all -1). Returns "" or an error naming the model and field.
std::string ParseHttpModelInfo(const std::string& model, const std::string& metadata_json,
                               const std::string& config_json, ModelInfo* info);

}  // namespace inferd::loadgen

#endif  // INFERD_TOOLS_LOADGEN_MODEL_INFO_H_
