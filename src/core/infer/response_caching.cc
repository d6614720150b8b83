#include "core/infer/response_caching.h"

#include <algorithm>
#include <cstring>

#include "core/infer/inference_response.h"

namespace inferd {

namespace {

void AppendU64(std::string& out, uint64_t value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

// Length first, so no two sequences of fields serialize alike.
void AppendString(std::string& out, std::string_view value) {
  AppendU64(out, value.size());
  out.append(value);
}

}  // namespace

std::optional<CacheKey> MakeCacheKey(const InferenceRequest& request, uint64_t owner) {
  std::vector<const InputTensor*> inputs;
  inputs.reserve(request.inputs().size());
  size_t bytes = 64;
  for (const InputTensor& input : request.inputs()) {
    for (const InputBuffer& buffer : input.buffers) {
      if (buffer.memory_type == INFERD_MEMORY_GPU) return std::nullopt;
    }
    inputs.push_back(&input);
    bytes += 32 + input.name.size() + input.original_shape.size() * 8 + input.byte_size;
  }
  std::sort(inputs.begin(), inputs.end(),
            [](const InputTensor* a, const InputTensor* b) { return a->name < b->name; });
  CacheKey key;
  key.owner = owner;
  std::string& out = key.bytes;
  out.reserve(bytes);
  AppendString(out, request.model_name());
  AppendU64(out, inputs.size());
  for (const InputTensor* input : inputs) {
    AppendString(out, input->name);
    AppendU64(out, static_cast<uint64_t>(input->datatype));
    AppendU64(out, input->original_shape.size());
    for (int64_t dim : input->original_shape) AppendU64(out, static_cast<uint64_t>(dim));
    AppendU64(out, input->byte_size);
    for (const InputBuffer& buffer : input->buffers) {
      if (buffer.byte_size > 0) out.append(static_cast<const char*>(buffer.base), buffer.byte_size);
    }
  }
  // Requested outputs (none: all of them) and the classes asked of each.
  std::vector<std::pair<std::string_view, uint32_t>> outputs;
  for (const std::string& name : request.requested_outputs) {
    uint32_t class_count = 0;
    for (const auto& [classified, count] : request.classifications) {
      if (classified == name) class_count = count;
    }
    outputs.emplace_back(name, class_count);
  }
  std::sort(outputs.begin(), outputs.end());
  AppendU64(out, outputs.size());
  for (const auto& [name, class_count] : outputs) {
    AppendString(out, name);
    AppendU64(out, class_count);
  }
  return key;
}

std::optional<CachedResponse> CopyForCache(const InferenceResponse& response) {
  CachedResponse cached;
  cached.outputs.reserve(response.outputs().size());
  for (const auto& output : response.outputs()) {
    if (!output->requested || output->state) continue;
    if (output->memory_type == INFERD_MEMORY_GPU) return std::nullopt;
    CachedOutput& copy = cached.outputs.emplace_back();
    copy.name = output->name;
    copy.datatype = output->datatype;
    copy.shape = output->shape;
    if (output->byte_size > 0) {
      copy.data.assign(static_cast<const char*>(output->buffer), output->byte_size);
    }
  }
  return cached;
}

namespace {

Status FillFromCache(InferenceResponse& response, const CachedResponse& cached) {
  for (const CachedOutput& stored : cached.outputs) {
    ASSIGN_OR_RETURN(OutputTensor * output,
                     response.AddOutput(stored.name, stored.datatype, stored.shape.data(),
                                        static_cast<uint32_t>(stored.shape.size())));
    INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
    int64_t memory_type_id = 0;
    RETURN_IF_ERROR(
        response.AllocateBuffer(output, stored.data.size(), &memory_type, &memory_type_id));
    if (memory_type == INFERD_MEMORY_GPU) {
      return Status::Unsupported("model '" + response.model_name() + "': output '" +
                                 stored.name +
                                 "': the allocator gave GPU memory for a cached response");
    }
    if (!stored.data.empty()) std::memcpy(output->buffer, stored.data.data(), stored.data.size());
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<InferenceResponse> ResponseFromCache(InferenceRequest& request,
                                                     const CachedResponse& cached,
                                                     Status* status) {
  auto response = std::make_unique<InferenceResponse>(request);
  *status = FillFromCache(*response, cached);
  return response;
}

}  // namespace inferd
