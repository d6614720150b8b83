// Shape resolution and random data of input_generator.h.
#include "loadgen/input_generator.h"

#include <cstring>
#include <random>

namespace inferd::loadgen {
namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

template <typename T>
void Append(std::string* bytes, T value) {
  char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  bytes->append(raw, sizeof(T));
}

// One random element of `datatype` appended to `bytes`.
void AppendRandom(const std::string& datatype, int string_length, std::mt19937_64& rng,
                  std::string* bytes) {
  const uint64_t r = rng();
  const uint64_t small = r % 100;
  const uint16_t mantissa = static_cast<uint16_t>(r % 1024);
  if (datatype == "BOOL") Append<uint8_t>(bytes, r & 1);
  else if (datatype == "UINT8") Append<uint8_t>(bytes, small);
  else if (datatype == "UINT16") Append<uint16_t>(bytes, small);
  else if (datatype == "UINT32") Append<uint32_t>(bytes, small);
  else if (datatype == "UINT64") Append<uint64_t>(bytes, small);
  else if (datatype == "INT8") Append<int8_t>(bytes, small);
  else if (datatype == "INT16") Append<int16_t>(bytes, small);
  else if (datatype == "INT32") Append<int32_t>(bytes, small);
  else if (datatype == "INT64") Append<int64_t>(bytes, small);
  else if (datatype == "FP16") Append<uint16_t>(bytes, 0x3C00 | mantissa);         // 1 + m/1024
  else if (datatype == "BF16") Append<uint16_t>(bytes, 0x3F80 | (mantissa & 0x7F)); // 1 + m/128
  else if (datatype == "FP32") Append<float>(bytes, 1.0f + float(mantissa) / 1024);
  else if (datatype == "FP64") Append<double>(bytes, 1.0 + double(r % 1000000) / 1000000);
  else if (datatype == "BYTES") {
    static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    Append<uint32_t>(bytes, static_cast<uint32_t>(string_length));
    for (int i = 0; i < string_length; ++i) bytes->push_back(kAlphabet[rng() % 36]);
  }
}

}  // namespace

int64_t GeneratedTensor::element_count() const {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

int DatatypeSize(const std::string& datatype) {
  if (datatype == "BOOL" || datatype == "UINT8" || datatype == "INT8") return 1;
  if (datatype == "UINT16" || datatype == "INT16" || datatype == "FP16" || datatype == "BF16") return 2;
  if (datatype == "UINT32" || datatype == "INT32" || datatype == "FP32") return 4;
  if (datatype == "UINT64" || datatype == "INT64" || datatype == "FP64") return 8;
  if (datatype == "BYTES") return 0;
  return -1;
}

std::string ResolveInputShapes(const ModelInfo& info, int batch_size,
                               const std::map<std::string, std::vector<int64_t>>& shapes,
                               std::vector<TensorSpec>* resolved) {
  const std::string where = "model '" + info.name + "'";
  if (info.max_batch_size == 0 && batch_size > 1) {
    return where + " does not batch (max_batch_size 0): --batch-size must be 1";
  }
  for (const auto& [name, dims] : shapes) {
    bool known = false;
    for (const TensorSpec& input : info.inputs) known |= input.name == name;
    if (!known) return "--shape " + name + ": " + where + " has no input named '" + name + "'";
  }
  resolved->clear();
  for (const TensorSpec& input : info.inputs) {
    if (DatatypeSize(input.datatype) < 0) {
      return where + " input '" + input.name + "': unknown datatype '" + input.datatype + "'";
    }
    std::vector<int64_t> dims = input.shape;
    const bool batches = info.max_batch_size > 0 && !dims.empty();
    if (batches) dims.erase(dims.begin());  // the batch dimension, -1 in the metadata
    if (auto given = shapes.find(input.name); given != shapes.end()) {
      if (given->second.size() != dims.size()) {
        return "--shape " + input.name + ": " + where + " input '" + input.name + "' has " +
               std::to_string(dims.size()) + " dimensions besides the batch, " +
               ShapeText(input.shape) + ", not " + std::to_string(given->second.size());
      }
      dims = given->second;
    }
    for (int64_t dim : dims) {
      if (dim < 0) {
        return where + " input '" + input.name + "' has the variable shape " +
               ShapeText(input.shape) + ": give its dimensions" +
               (batches ? " after the batch one" : "") + " with --shape " + input.name + ":d1[,d2...]";
      }
    }
    if (batches) dims.insert(dims.begin(), batch_size);
    resolved->push_back({input.name, input.datatype, dims});
  }
  return "";
}

std::vector<GeneratedTensor> GenerateInputs(const std::vector<TensorSpec>& specs, uint64_t seed,
                                            int string_length) {
  std::mt19937_64 rng(seed);
  std::vector<GeneratedTensor> tensors;
  for (const TensorSpec& spec : specs) {
    GeneratedTensor tensor{spec.name, spec.datatype, spec.shape, {}};
    const int64_t count = tensor.element_count();
    const int size = DatatypeSize(spec.datatype);
    tensor.bytes.reserve(size > 0 ? count * size : count * (4 + string_length));
    for (int64_t i = 0; i < count; ++i) AppendRandom(spec.datatype, string_length, rng, &tensor.bytes);
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

}  // namespace inferd::loadgen
