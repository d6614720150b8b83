// Random input tensors for a model: resolves each input's shape (the batch
// size in front when the model batches, --shape for other -1 dimensions) and
// fills it with random values of its datatype. Every request of a run sends
// the same tensors, serialized once by the protocol client.
#ifndef INFERD_TOOLS_LOADGEN_INPUT_GENERATOR_H_
#define INFERD_TOOLS_LOADGEN_INPUT_GENERATOR_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "loadgen/model_info.h"

namespace inferd::loadgen {

// One input with its data in the binary tensor layout: elements packed
// little-endian; BYTES elements each as a 4-byte little-endian length then
// the bytes.
struct GeneratedTensor {
  std::string name;
  std::string datatype;
  std::vector<int64_t> shape;
  std::string bytes;

  int64_t element_count() const;
};

// Bytes per element of a fixed-size datatype; 0 for BYTES; -1 when unknown.
int DatatypeSize(const std::string& datatype);

// The concrete shape of every input of `info`. `shapes` (from --shape) gives
// dimensions without the batch dimension. Returns "" or an error naming the
// model and input (an unresolved -1, an unknown datatype, a batch size on a
// model that does not batch).
std::string ResolveInputShapes(const ModelInfo& info, int batch_size,
                               const std::map<std::string, std::vector<int64_t>>& shapes,
                               std::vector<TensorSpec>* resolved);

// Random data for each of `specs` (shapes resolved): integers in [0, 100),
// floating point in [1, 2), BOOL 0 or 1, BYTES of `string_length` letters and digits.
std::vector<GeneratedTensor> GenerateInputs(const std::vector<TensorSpec>& specs, uint64_t seed,
                                            int string_length);

}  // namespace inferd::loadgen

#endif  // INFERD_TOOLS_LOADGEN_INPUT_GENERATOR_H_
