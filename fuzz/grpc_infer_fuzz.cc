// Fuzz target: a gRPC ModelInferRequest, as the frontend receives it, through
// the frontend's request-to-core conversion (grpc/infer_request_builder.h:
// parameters, typed contents, raw_input_contents, shared memory inputs and
// outputs) into a real in-process server with identity models of several
// datatypes, executed, and its response converted back
// (grpc/infer_response_builder.h), exactly as a unary ModelInfer runs.
//
// The first byte picks the input's form: bit 0 clear, the rest is the
// serialized message (ParseFromArray); set, the rest drives a structured
// builder that makes messages protobuf's parser would rarely reach (typed
// contents of a given datatype, shapes near overflow, shared_memory_*
// parameters naming registered regions with offsets and sizes around their
// bounds). Bit 1 set sends the message instead over a ModelStreamInfer
// stream to the frontend's own gRPC server on a loopback port
// (grpc/stream_reactor.h, grpc/stream_request.h), which answers each
// request on the stream.
#include <fuzzer/FuzzedDataProvider.h>

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "common/output_allocator.h"
#include "common/server_error.h"
#include "fuzz/fuzz_server.h"
#include "grpc/infer_request_builder.h"
#include "grpc/grpc_server.h"
#include "grpc/infer_response_builder.h"
#include "grpc/output_destination.h"
#include "grpc_service.grpc.pb.h"
#include "grpc_service.pb.h"

namespace {

using inference::InferParameter;
using inference::ModelInferRequest;
using inferd::fuzz::FuzzServer;
using inferd::grpc_frontend::OutputDestination;

constexpr int kRegions = 2;

struct Setup {
  FuzzServer* fuzz = nullptr;
  inferd::OutputAllocator<OutputDestination> allocator;
  std::unique_ptr<inferd::grpc_frontend::GrpcServer> grpc;
  std::unique_ptr<inference::GRPCInferenceService::Stub> stub;
};

Setup& GetSetup() {
  static Setup* setup = [] {
    auto* s = new Setup;
    inferd::fuzz::FuzzServerOptions options;
    options.models = {{"fp32", inferd::fuzz::IdentityConfig("fp32", "TYPE_FP32", 8)},
                      {"bytes", inferd::fuzz::IdentityConfig("bytes", "TYPE_STRING", 8)},
                      {"int8", inferd::fuzz::IdentityConfig("int8", "TYPE_INT8", 0)},
                      {"bool", inferd::fuzz::IdentityConfig("bool", "TYPE_BOOL", 0)},
                      {"fp16", inferd::fuzz::IdentityConfig("fp16", "TYPE_FP16", 4)},
                      {"u64", inferd::fuzz::IdentityConfig("u64", "TYPE_UINT64", 0)}};
    s->fuzz = inferd::fuzz::StartFuzzServer(options, kRegions);
    if (!s->allocator.Init().ok()) __builtin_trap();
    inferd::grpc_frontend::GrpcOptions grpc;
    grpc.address = "127.0.0.1";
    grpc.port = 0;
    grpc.shared_memory = &s->fuzz->registry;
    s->grpc = std::make_unique<inferd::grpc_frontend::GrpcServer>(s->fuzz->server, grpc);
    if (!s->grpc->Start().ok()) __builtin_trap();
    s->stub = inference::GRPCInferenceService::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(s->grpc->port()), grpc::InsecureChannelCredentials()));
    return s;
  }();
  return *setup;
}

const char* const kModels[] = {"fp32", "bytes", "int8", "bool", "fp16", "u64", "missing", ""};
const char* const kDatatypes[] = {"FP32", "BYTES", "INT8",  "BOOL",  "FP16", "UINT64", "INT64",
                                  "BF16", "INT32", "UINT8", "INT16", "FP64", "UINT32", "x"};
const char* const kParameters[] = {"sequence_id", "sequence_start", "sequence_end", "priority",
                                   "timeout", "triton_enable_empty_final_response",
                                   "binary_data_output", "custom", "shared_memory_region"};

template <size_t N>
std::string Pick(FuzzedDataProvider& in, const char* const (&names)[N]) {
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) return in.ConsumeRandomLengthString(16);
  return names[in.ConsumeIntegralInRange<size_t>(0, N - 1)];
}

// Numbers near the edges of what offsets, sizes and shapes may hold.
uint64_t EdgyNumber(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: return in.ConsumeIntegralInRange<uint64_t>(0, 64);
    case 1: return inferd::fuzz::kRegionBytes - in.ConsumeIntegralInRange<uint64_t>(0, 8);
    case 2: return std::numeric_limits<uint64_t>::max() - in.ConsumeIntegralInRange<uint64_t>(0, 8);
    case 3: return uint64_t{1} << in.ConsumeIntegralInRange<int>(0, 63);
    case 4: return in.ConsumeIntegralInRange<uint64_t>(0, inferd::fuzz::kRegionBytes * 2);
    default: return in.ConsumeIntegral<uint64_t>();
  }
}

void SetValue(FuzzedDataProvider& in, InferParameter* value) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: value->set_bool_param(in.ConsumeBool()); break;
    case 1: value->set_int64_param(static_cast<int64_t>(EdgyNumber(in))); break;
    case 2: value->set_uint64_param(EdgyNumber(in)); break;
    case 3: value->set_double_param(in.ConsumeFloatingPoint<double>()); break;
    case 4: value->set_string_param(in.ConsumeRandomLengthString(16)); break;
    default: break;  // no value
  }
}

// shared_memory_region / _offset / _byte_size, some of them, some malformed.
void AddSharedMemory(FuzzedDataProvider& in,
                     google::protobuf::Map<std::string, InferParameter>* parameters) {
  const int region = in.ConsumeIntegralInRange<int>(0, kRegions);
  if (in.ConsumeIntegralInRange<int>(0, 7) != 0) {
    (*parameters)["shared_memory_region"].set_string_param(
        region < kRegions ? "region" + std::to_string(region) : in.ConsumeRandomLengthString(8));
  }
  if (in.ConsumeIntegralInRange<int>(0, 7) != 0) {
    auto& size = (*parameters)["shared_memory_byte_size"];
    if (in.ConsumeIntegralInRange<int>(0, 7) == 0) SetValue(in, &size);
    else size.set_int64_param(static_cast<int64_t>(EdgyNumber(in)));
  }
  if (in.ConsumeBool()) {
    auto& offset = (*parameters)["shared_memory_offset"];
    if (in.ConsumeIntegralInRange<int>(0, 7) == 0) SetValue(in, &offset);
    else offset.set_uint64_param(EdgyNumber(in));
  }
}

void FillContents(FuzzedDataProvider& in, inference::InferTensorContents* contents) {
  const int count = in.ConsumeIntegralInRange<int>(0, 24);
  const int field = in.ConsumeIntegralInRange<int>(0, 7);
  for (int i = 0; i < count && in.remaining_bytes() > 0; ++i) {
    switch (field) {
      case 0: contents->add_bool_contents(in.ConsumeBool()); break;
      case 1: contents->add_int_contents(in.ConsumeIntegral<int32_t>()); break;
      case 2: contents->add_int64_contents(in.ConsumeIntegral<int64_t>()); break;
      case 3: contents->add_uint_contents(in.ConsumeIntegral<uint32_t>()); break;
      case 4: contents->add_uint64_contents(in.ConsumeIntegral<uint64_t>()); break;
      case 5: contents->add_fp32_contents(in.ConsumeFloatingPoint<float>()); break;
      case 6: contents->add_fp64_contents(in.ConsumeFloatingPoint<double>()); break;
      default: contents->add_bytes_contents(in.ConsumeRandomLengthString(12)); break;
    }
  }
}

void AddInput(FuzzedDataProvider& in, int index, ModelInferRequest* message) {
  auto* input = message->add_inputs();
  input->set_name(in.ConsumeIntegralInRange<int>(0, 7) == 0 ? in.ConsumeRandomLengthString(8)
                                                            : "INPUT" + std::to_string(index));
  input->set_datatype(Pick(in, kDatatypes));
  const int rank = in.ConsumeIntegralInRange<int>(0, 4);
  for (int d = 0; d < rank; ++d) {
    input->add_shape(in.ConsumeBool() ? in.ConsumeIntegralInRange<int64_t>(-1, 8)
                                      : static_cast<int64_t>(EdgyNumber(in)));
  }
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: FillContents(in, input->mutable_contents()); break;
    case 1: message->add_raw_input_contents(in.ConsumeRandomLengthString(64)); break;
    case 2: AddSharedMemory(in, input->mutable_parameters()); break;
    default: break;  // no data
  }
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) SetValue(in, &(*input->mutable_parameters())[Pick(in, kParameters)]);
}

ModelInferRequest Structured(FuzzedDataProvider& in) {
  ModelInferRequest message;
  message.set_model_name(Pick(in, kModels));
  if (in.ConsumeBool()) message.set_model_version(in.ConsumeBool() ? "1" : in.ConsumeRandomLengthString(4));
  if (in.ConsumeBool()) message.set_id(in.ConsumeRandomLengthString(8));
  for (int i = in.ConsumeIntegralInRange<int>(0, 3); i > 0; --i) {
    SetValue(in, &(*message.mutable_parameters())[Pick(in, kParameters)]);
  }
  for (int i = 0, n = in.ConsumeIntegralInRange<int>(0, 3); i < n; ++i) AddInput(in, i, &message);
  for (int i = 0, n = in.ConsumeIntegralInRange<int>(0, 2); i < n; ++i) {
    auto* output = message.add_outputs();
    output->set_name(in.ConsumeIntegralInRange<int>(0, 7) == 0 ? in.ConsumeRandomLengthString(8)
                                                               : "OUTPUT" + std::to_string(i));
    if (in.ConsumeBool()) AddSharedMemory(in, output->mutable_parameters());
    if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
      SetValue(in, &(*output->mutable_parameters())["classification"]);
    }
  }
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) message.add_raw_input_contents(in.ConsumeRandomLengthString(16));
  return message;
}

// What the unary call waits for: the request released and its final response.
struct Call {
  std::mutex mu;
  std::condition_variable done;
  int pending = 2;
  OutputDestination outputs;
  inferd::Status status;

  void Arrive() {
    std::lock_guard<std::mutex> lock(mu);
    if (--pending == 0) done.notify_all();
  }
  static void OnRelease(INFERD_InferenceRequest*, uint32_t flags, void* userp) {
    if (flags & INFERD_REQUEST_RELEASE_ALL) static_cast<Call*>(userp)->Arrive();
  }
  static void OnResponse(INFERD_InferenceResponse* response, uint32_t flags, void* userp) {
    auto* call = static_cast<Call*>(userp);
    if (response != nullptr) {
      call->status = inferd::grpc_frontend::BuildInferResponse(response, call->outputs);
      inferd::DiscardServerError(INFERD_InferenceResponseDelete(response));
    }
    if (flags & INFERD_RESPONSE_COMPLETE_FINAL) call->Arrive();
  }
};

void Run(const ModelInferRequest& message) {
  Setup& setup = GetSetup();
  inference::ModelInferResponse response;
  Call call;
  call.outputs.message = &response;
  inferd::grpc_frontend::RequestMemory memory;
  const inferd::grpc_frontend::BuildContext build{setup.fuzz->server, &setup.fuzz->registry,
                                                  &memory, &call.outputs, nullptr};
  const inferd::grpc_frontend::RequestCallbacks callbacks{
      setup.allocator.get(), Call::OnRelease, Call::OnResponse, &call, /*single_response=*/true};
  INFERD_InferenceRequest* request = nullptr;
  const inferd::Status s =
      inferd::grpc_frontend::SubmitInferRequest(build, message, &request, callbacks);
  if (s.ok()) {
    std::unique_lock<std::mutex> lock(call.mu);
    call.done.wait(lock, [&call] { return call.pending == 0; });
  }
  if (request != nullptr) inferd::DiscardServerError(INFERD_InferenceRequestDelete(request));
}

// One request on a ModelStreamInfer stream, every answer read until the
// server ends the stream.
void Stream(const ModelInferRequest& message) {
  grpc::ClientContext context;
  // A stream the server never ends is a bug: the deadline turns it into a
  // timeout (libFuzzer's -timeout reports it) rather than a silent hang.
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  auto stream = GetSetup().stub->ModelStreamInfer(&context);
  stream->Write(message);
  stream->WritesDone();
  inference::ModelStreamInferResponse response;
  while (stream->Read(&response)) {
  }
  const grpc::Status status = stream->Finish();
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  ModelInferRequest message;
  if (data[0] % 2 == 0) {
    if (!message.ParseFromArray(data + 1, static_cast<int>(size - 1))) return 0;
  } else {
    FuzzedDataProvider in(data + 1, size - 1);
    message = Structured(in);
  }
  // The identity backend's test hook: a request may ask it to sleep (up to a
  // day), which would only stall the fuzzer.
  message.mutable_parameters()->erase("execute_delay_ms");
  if (data[0] & 2) {
    Stream(message);
  } else {
    Run(message);
  }
  return 0;
}
