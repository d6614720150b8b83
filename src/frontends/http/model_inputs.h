// The inputs of a model as its metadata describes them: what the generate
// extension needs to turn a plain JSON value into a tensor, since its requests
// carry neither datatype nor shape. Thread-safe (no shared state).
//
// Fetched for every request, not cached: fetching and reading the metadata
// took about 1 us per request (measured on identity_fp32 and a decoupled
// model), under 1% of a /generate round trip over loopback (about 185 us,
// the same as /infer's), while a cache would have to follow every load,
// reload and unload of the model to stay right.
#ifndef INFERD_FRONTENDS_HTTP_MODEL_INPUTS_H_
#define INFERD_FRONTENDS_HTTP_MODEL_INPUTS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http {

struct ModelInput {
  std::string name;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  // As the metadata gives it: a batching model's shape starts with -1, and -1
  // marks every dimension of variable size.
  std::vector<int64_t> shape;
};

// Reads the "inputs" of a model metadata document
// ({"inputs": [{"name", "datatype", "shape"}, ...], ...}); INTERNAL when the
// document is not of that form.
Status ParseModelInputs(std::string_view metadata_json, std::vector<ModelInput>* inputs);

// The inputs of `model` at `version` (-1: the latest READY version), from
// INFERD_ServerModelMetadata; its error (NOT_FOUND for an unknown model or
// version) when it fails.
Status FetchModelInputs(INFERD_Server* server, const std::string& model, int64_t version,
                        std::vector<ModelInput>* inputs);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_MODEL_INPUTS_H_
