// ModelInferRequest -> INFERD_InferenceRequest through the server API.
#include "grpc/infer_request_builder.h"

#include <cstdint>
#include <limits>
#include <string>

#include "common/server_error.h"
#include "grpc/version_string.h"
#include "grpc/tensor_contents.h"

namespace inferd::grpc_frontend {
namespace {

using inference::InferParameter;
using inference::ModelInferRequest;
using ParameterMap = google::protobuf::Map<std::string, InferParameter>;

std::string Quote(const std::string& name) { return "'" + name + "'"; }

// A non-negative integer parameter no larger than `max`.
bool UnsignedValue(const InferParameter& value, uint64_t max, uint64_t* out) {
  if (value.parameter_choice_case() == InferParameter::kUint64Param) {
    *out = value.uint64_param();
  } else if (value.parameter_choice_case() == InferParameter::kInt64Param &&
             value.int64_param() >= 0) {
    *out = static_cast<uint64_t>(value.int64_param());
  } else {
    return false;
  }
  return *out <= max;
}

// A parameter the protocol does not define: handed to the model as it is.
Status PassThrough(INFERD_InferenceRequest* request, const std::string& name,
                   const InferParameter& value) {
  switch (value.parameter_choice_case()) {
    case InferParameter::kBoolParam:
      return StatusFromServerError(
          INFERD_InferenceRequestSetBoolParameter(request, name.c_str(), value.bool_param()));
    case InferParameter::kInt64Param:
      return StatusFromServerError(
          INFERD_InferenceRequestSetIntParameter(request, name.c_str(), value.int64_param()));
    case InferParameter::kStringParam:
      return StatusFromServerError(INFERD_InferenceRequestSetStringParameter(
          request, name.c_str(), value.string_param().c_str()));
    case InferParameter::kUint64Param:
      if (value.uint64_param() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return Status::InvalidArg("parameter " + Quote(name) + " does not fit a 64-bit integer");
      }
      return StatusFromServerError(INFERD_InferenceRequestSetIntParameter(
          request, name.c_str(), static_cast<int64_t>(value.uint64_param())));
    case InferParameter::kDoubleParam:
      return StatusFromServerError(
          INFERD_InferenceRequestSetDoubleParameter(request, name.c_str(), value.double_param()));
    case InferParameter::PARAMETER_CHOICE_NOT_SET:
      break;
  }
  return Status::InvalidArg("parameter " + Quote(name) + " has no value");
}

Status SetParameter(INFERD_InferenceRequest* request, const std::string& name,
                    const InferParameter& value, uint32_t* flags) {
  const auto invalid = [&name](const char* expected) {
    return Status::InvalidArg("parameter " + Quote(name) + " must be " + expected);
  };
  uint64_t number = 0;
  if (name == "sequence_id") {
    if (value.parameter_choice_case() == InferParameter::kStringParam) {
      return StatusFromServerError(INFERD_InferenceRequestSetCorrelationIdString(
          request, value.string_param().c_str()));
    }
    if (!UnsignedValue(value, std::numeric_limits<uint64_t>::max(), &number)) {
      return invalid("a non-negative integer or a string");
    }
    return StatusFromServerError(INFERD_InferenceRequestSetCorrelationId(request, number));
  }
  if (name == "sequence_start" || name == "sequence_end") {
    if (value.parameter_choice_case() != InferParameter::kBoolParam) return invalid("a boolean");
    if (value.bool_param()) {
      *flags |= name == "sequence_start" ? INFERD_REQUEST_FLAG_SEQUENCE_START
                                         : INFERD_REQUEST_FLAG_SEQUENCE_END;
    }
    return Status::Ok();
  }
  if (name == "priority") {
    if (!UnsignedValue(value, std::numeric_limits<uint32_t>::max(), &number)) {
      return invalid("a non-negative 32-bit integer");
    }
    return StatusFromServerError(
        INFERD_InferenceRequestSetPriority(request, static_cast<uint32_t>(number)));
  }
  if (name == "timeout") {
    if (!UnsignedValue(value, std::numeric_limits<uint64_t>::max(), &number)) {
      return invalid("a non-negative integer (microseconds)");
    }
    return StatusFromServerError(INFERD_InferenceRequestSetTimeoutMicroseconds(request, number));
  }
  // Read by the stream (stream_request.h), never handed to the model: Triton
  // reserves the "triton_" names and checks the type as here.
  if (name == "triton_enable_empty_final_response") {
    if (value.parameter_choice_case() != InferParameter::kBoolParam) return invalid("a boolean");
    return Status::Ok();
  }
  // A hint for the HTTP frontend: nothing to do over gRPC.
  if (name == "binary_data_output") return Status::Ok();
  return PassThrough(request, name, value);
}

// The shared_memory_* parameters of a tensor: *ref stays empty (region "")
// when it has none.
Status ParseSharedMemoryRef(const ParameterMap& parameters, const std::string& what,
                            std::string* region, uint64_t* offset, uint64_t* byte_size) {
  const auto found_region = parameters.find("shared_memory_region");
  const auto found_size = parameters.find("shared_memory_byte_size");
  const auto found_offset = parameters.find("shared_memory_offset");
  if (found_region == parameters.end()) {
    if (found_size != parameters.end() || found_offset != parameters.end()) {
      return Status::InvalidArg(what + ": 'shared_memory_byte_size' and 'shared_memory_offset' " +
                                "need a 'shared_memory_region'");
    }
    return Status::Ok();
  }
  if (found_region->second.parameter_choice_case() != InferParameter::kStringParam ||
      found_region->second.string_param().empty()) {
    return Status::InvalidArg(what + ": 'shared_memory_region' must be a non-empty string");
  }
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  if (found_size == parameters.end() || !UnsignedValue(found_size->second, max, byte_size)) {
    return Status::InvalidArg(what + ": a tensor in shared memory needs " +
                              "'shared_memory_byte_size', a non-negative integer");
  }
  *offset = 0;
  if (found_offset != parameters.end() && !UnsignedValue(found_offset->second, max, offset)) {
    return Status::InvalidArg(what + ": 'shared_memory_offset' must be a non-negative integer");
  }
  *region = found_region->second.string_param();
  return Status::Ok();
}

// The slice of shared memory a tensor names, or OK with *in_shared_memory
// false when it names none.
Status LocateSharedMemory(const BuildContext& build, const ParameterMap& parameters,
                          const std::string& what, std::string* region,
                          SharedMemorySlice* slice, bool* in_shared_memory) {
  uint64_t offset = 0;
  uint64_t byte_size = 0;
  *in_shared_memory = false;
  if (Status s = ParseSharedMemoryRef(parameters, what, region, &offset, &byte_size);
      !s.ok() || region->empty()) {
    return s;
  }
  if (build.shared_memory == nullptr) {
    return Status::Unsupported(what + " is in shared memory, which this server does not enable");
  }
  *in_shared_memory = true;
  return build.shared_memory->Slice(*region, offset, byte_size, what, slice);
}

Status ElementCount(const ModelInferRequest::InferInputTensor& input, uint64_t* count) {
  uint64_t product = 1;
  for (const int64_t dim : input.shape()) {
    if (dim < 0) {
      return Status::InvalidArg("input " + Quote(input.name()) +
                                ": shape has a negative dimension");
    }
    if (__builtin_mul_overflow(product, static_cast<uint64_t>(dim), &product)) {
      return Status::InvalidArg("input " + Quote(input.name()) + ": shape is too large");
    }
  }
  *count = product;
  return Status::Ok();
}

// Where input `index` has its data: shared memory, raw_input_contents (the
// next entry, `*raw_index`) or its typed contents.
Status LocateInputData(const BuildContext& build, const ModelInferRequest& message,
                       int index, INFERD_DataType datatype, int* raw_index,
                       TensorData* data) {
  const ModelInferRequest::InferInputTensor& input = message.inputs(index);
  const std::string what = "input " + Quote(input.name());
  std::string region;
  SharedMemorySlice slice;
  bool in_shared_memory = false;
  if (Status s =
      LocateSharedMemory(build, input.parameters(), what, &region, &slice, &in_shared_memory);
      !s.ok()) {
    return s;
  }
  if (in_shared_memory) {
    *data = TensorData{slice.data, slice.byte_size};
    build.memory->input_slices.push_back(std::move(slice));
    return Status::Ok();
  }
  if (message.raw_input_contents_size() > 0) {
    if (input.has_contents() && input.contents().ByteSizeLong() > 0) {
      return Status::InvalidArg(what + " has typed contents although the request uses " +
                                "raw_input_contents");
    }
    if (*raw_index >= message.raw_input_contents_size()) {
      return Status::InvalidArg("model " + Quote(message.model_name()) + ": " + what +
                                " has no raw_input_contents entry; with raw_input_contents every " +
                                "input not in shared memory needs one, in input order");
    }
    const std::string& raw = message.raw_input_contents((*raw_index)++);
    *data = TensorData{raw.data(), raw.size()};
    return Status::Ok();
  }
  uint64_t count = 0;
  if (Status s = ElementCount(input, &count); !s.ok()) return s;
  return ContentsToTensor(input.contents(), datatype, count, input.name(),
                          &build.memory->converted, data);
}

Status AddInput(const BuildContext& build, INFERD_InferenceRequest* request,
                const ModelInferRequest& message, int index, int* raw_index) {
  const ModelInferRequest::InferInputTensor& input = message.inputs(index);
  const INFERD_DataType datatype = INFERD_StringToDataType(input.datatype().c_str());
  if (datatype == INFERD_TYPE_INVALID) {
    return Status::InvalidArg("input " + Quote(input.name()) + ": unknown datatype " +
                              Quote(input.datatype()));
  }
  TensorData data;
  if (Status s = LocateInputData(build, message, index, datatype, raw_index, &data);
      !s.ok()) {
    return s;
  }
  if (Status s = StatusFromServerError(INFERD_InferenceRequestAddInput(
          request, input.name().c_str(), datatype, input.shape().data(), input.shape_size()));
      !s.ok()) {
    return s;
  }
  return StatusFromServerError(INFERD_InferenceRequestAppendInputData(
      request, input.name().c_str(), data.base, data.byte_size, INFERD_MEMORY_CPU, 0));
}

Status AddRequestedOutput(const BuildContext& build, INFERD_InferenceRequest* request,
                          const ModelInferRequest::InferRequestedOutputTensor& output) {
  const std::string what = "output " + Quote(output.name());
  SharedMemoryOutput target;
  bool in_shared_memory = false;
  if (Status s = LocateSharedMemory(build, output.parameters(), what, &target.region,
                                    &target.slice, &in_shared_memory);
      !s.ok()) {
    return s;
  }
  if (in_shared_memory) {
    target.name = output.name();
    build.outputs->shared_memory.Add(std::move(target));
  }
  if (Status s = StatusFromServerError(
          INFERD_InferenceRequestAddRequestedOutput(request, output.name().c_str()));
      !s.ok()) {
    return s;
  }
  const auto classes = output.parameters().find("classification");
  if (classes == output.parameters().end()) return Status::Ok();
  uint64_t class_count = 0;
  if (!UnsignedValue(classes->second, std::numeric_limits<uint32_t>::max(), &class_count) ||
      class_count == 0) {
    return Status::InvalidArg(what + ": 'classification' must be a positive integer");
  }
  return StatusFromServerError(INFERD_InferenceRequestSetOutputClassification(
      request, output.name().c_str(), static_cast<uint32_t>(class_count)));
}

// Everything but creation.
Status Fill(const BuildContext& build, INFERD_InferenceRequest* request,
            const ModelInferRequest& message) {
  if (!message.id().empty()) {
    if (Status s =
        StatusFromServerError(INFERD_InferenceRequestSetId(request, message.id().c_str()));
        !s.ok()) {
      return s;
    }
  }
  uint32_t flags = 0;
  for (const auto& [name, value] : message.parameters()) {
    if (Status s = SetParameter(request, name, value, &flags); !s.ok()) return s;
  }
  if (flags != 0) {
    if (Status s = StatusFromServerError(INFERD_InferenceRequestSetFlags(request, flags));
        !s.ok()) {
      return s;
    }
  }
  if (build.forwarded != nullptr) {
    if (Status s = SetForwardedHeaders(request, *build.forwarded); !s.ok()) return s;
  }
  int raw_index = 0;
  for (int i = 0; i < message.inputs_size(); ++i) {
    if (Status s = AddInput(build, request, message, i, &raw_index); !s.ok()) return s;
  }
  if (raw_index < message.raw_input_contents_size()) {
    return Status::InvalidArg("model " + Quote(message.model_name()) + ": the request has " +
                              std::to_string(message.raw_input_contents_size()) +
                              " raw_input_contents but only " + std::to_string(raw_index) +
                              " inputs outside shared memory to take them");
  }
  for (const auto& output : message.outputs()) {
    if (Status s = AddRequestedOutput(build, request, output); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace

Status CollectForwardedMetadata(
    const HeaderForwarder* forwarder,
    const std::multimap<grpc::string_ref, grpc::string_ref>& metadata, ForwardedHeaders* out) {
  if (forwarder == nullptr) return Status::Ok();
  for (const auto& [key, value] : metadata) {
    if (Status s = forwarder->Collect(std::string_view(key.data(), key.size()),
                                      std::string_view(value.data(), value.size()), out);
        !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

Status BuildInferRequest(const BuildContext& build, const ModelInferRequest& message,
                         INFERD_InferenceRequest** request) {
  *request = nullptr;
  int64_t version = -1;
  if (Status s = ParseModelVersion(message.model_name(), message.model_version(), &version);
      !s.ok()) {
    return s;
  }
  INFERD_InferenceRequest* created = nullptr;
  if (Status s = StatusFromServerError(
          INFERD_InferenceRequestNew(&created, build.server, message.model_name().c_str(), version));
      !s.ok()) {
    return s;
  }
  // Before Fill, whose "priority" parameter overrides it.
  Status s = build.default_priority == 0
                 ? Status::Ok()
                 : StatusFromServerError(
                       INFERD_InferenceRequestSetPriority(created, build.default_priority));
  if (s.ok()) s = Fill(build, created, message);
  if (s.ok() && build.metadata != nullptr) s = SetTraceContext(*build.metadata, created);
  if (!s.ok()) {
    DiscardServerError(INFERD_InferenceRequestDelete(created));
    return s;
  }
  *request = created;
  return Status::Ok();
}

Status SetTraceContext(const std::multimap<grpc::string_ref, grpc::string_ref>& metadata,
                       INFERD_InferenceRequest* request) {
  const auto traceparent = metadata.find("traceparent");
  if (traceparent == metadata.end()) return Status::Ok();
  const auto tracestate = metadata.find("tracestate");
  const std::string parent(traceparent->second.data(), traceparent->second.size());
  const std::string state = tracestate == metadata.end()
                                ? std::string()
                                : std::string(tracestate->second.data(), tracestate->second.size());
  return StatusFromServerError(INFERD_InferenceRequestSetTraceContext(
      request, parent.c_str(), state.empty() ? nullptr : state.c_str()));
}

Status SubmitInferRequest(const BuildContext& build,
                          const inference::ModelInferRequest& message,
                          INFERD_InferenceRequest** request,
                          const RequestCallbacks& callbacks) {
  if (Status s = BuildInferRequest(build, message, request); !s.ok()) return s;
  if (Status s = StatusFromServerError(INFERD_InferenceRequestSetReleaseCallback(
          *request, callbacks.release_fn, callbacks.userp));
      !s.ok()) {
    return s;
  }
  if (Status s = StatusFromServerError(INFERD_InferenceRequestSetResponseCallback(
          *request, callbacks.allocator, build.outputs, callbacks.response_fn, callbacks.userp));
      !s.ok()) {
    return s;
  }
  if (callbacks.single_response) {
    if (Status s = StatusFromServerError(INFERD_InferenceRequestSetSingleResponse(*request, true));
        !s.ok()) {
      return s;
    }
  }
  if (callbacks.execute_on_caller) {
    if (Status s = StatusFromServerError(INFERD_InferenceRequestSetExecuteOnCaller(*request, true));
        !s.ok()) {
      return s;
    }
  }
  return StatusFromServerError(INFERD_ServerInferAsync(build.server, *request));
}

}  // namespace inferd::grpc_frontend
