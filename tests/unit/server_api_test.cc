// The in-process C API (server.h) end to end, with the real identity backend:
// create a server on a temporary repository, infer, read the index, stop.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <vector>

#include "core/test_util/temp_dir.h"
#include "inferd/server.h"

namespace inferd {
namespace {

const char* kIdentityConfig = R"(
  name: "identity"
  backend: "identity"
  max_batch_size: 4
  input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 3 ] } ]
  output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 3 ] } ]
)";

std::string ToString(INFERD_Message* message) {
  const char* base = nullptr;
  size_t size = 0;
  EXPECT_EQ(INFERD_MessageSerializeToJson(message, &base, &size), nullptr);
  std::string out(base, size);
  INFERD_MessageDelete(message);
  return out;
}

INFERD_Error* MallocAlloc(INFERD_ResponseAllocator*, const char*, size_t byte_size,
                          INFERD_MemoryType, int64_t, void*, void** buffer, void** buffer_userp,
                          INFERD_MemoryType* type, int64_t* type_id) {
  *buffer = byte_size ? std::malloc(byte_size) : nullptr;
  *buffer_userp = nullptr;
  *type = INFERD_MEMORY_CPU;
  *type_id = 0;
  return nullptr;
}

INFERD_Error* MallocRelease(INFERD_ResponseAllocator*, void* buffer, void*, size_t,
                            INFERD_MemoryType, int64_t) {
  std::free(buffer);
  return nullptr;
}

// What a finished request produced.
struct Outcome {
  std::promise<INFERD_InferenceResponse*> response;
  std::promise<void> released;
};

class ServerApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_.WriteFile("identity/config.pbtxt", kIdentityConfig);
    repo_.MakeDir("identity/1");
    repo_.WriteFile("broken/config.pbtxt", "name: \"broken\" max_batch_size: [oops");
    repo_.MakeDir("broken/1");
    INFERD_ServerOptions* options = nullptr;
    ASSERT_EQ(INFERD_ServerOptionsNew(&options), nullptr);
    INFERD_ServerOptionsAddModelRepositoryPath(options, repo_.path().c_str());
    INFERD_ServerOptionsSetBackendDirectory(options, INFERD_BINARY_DIR "/backends");
    INFERD_ServerOptionsSetLogInfo(options, false);
    INFERD_ServerOptionsSetLogError(options, false);
    INFERD_ServerOptionsSetExitOnError(options, false);  // "broken" fails to load
    INFERD_Error* error = INFERD_ServerNew(&server_, options);
    INFERD_ServerOptionsDelete(options);
    ASSERT_EQ(error, nullptr) << INFERD_ErrorMessage(error);
    ASSERT_EQ(INFERD_ResponseAllocatorNew(&allocator_, MallocAlloc, MallocRelease), nullptr);
  }
  void TearDown() override {
    INFERD_ResponseAllocatorDelete(allocator_);
    if (server_) {
      EXPECT_EQ(INFERD_ServerDelete(server_), nullptr);
    }
  }

  // Sends `values` as INPUT0 of shape [1,3] and waits for the response.
  INFERD_InferenceResponse* Infer(const std::vector<int32_t>& values) {
    INFERD_InferenceRequest* request = nullptr;
    EXPECT_EQ(INFERD_InferenceRequestNew(&request, server_, "identity", -1), nullptr);
    const int64_t shape[] = {1, 3};
    INFERD_InferenceRequestSetId(request, "req-7");
    INFERD_InferenceRequestAddInput(request, "INPUT0", INFERD_TYPE_INT32, shape, 2);
    INFERD_InferenceRequestAppendInputData(request, "INPUT0", values.data(),
                                           values.size() * sizeof(int32_t), INFERD_MEMORY_CPU, 0);
    Outcome outcome;
    INFERD_InferenceRequestSetReleaseCallback(
        request, [](INFERD_InferenceRequest*, uint32_t, void* userp) {
          static_cast<Outcome*>(userp)->released.set_value();
        }, &outcome);
    INFERD_InferenceRequestSetResponseCallback(
        request, allocator_, nullptr,
        [](INFERD_InferenceResponse* response, uint32_t flags, void* userp) {
          EXPECT_TRUE(flags & INFERD_RESPONSE_COMPLETE_FINAL);
          static_cast<Outcome*>(userp)->response.set_value(response);
        }, &outcome);
    INFERD_Error* error = INFERD_ServerInferAsync(server_, request);
    if (error != nullptr) {
      ADD_FAILURE() << INFERD_ErrorMessage(error);
      INFERD_ErrorDelete(error);
      INFERD_InferenceRequestDelete(request);
      return nullptr;
    }
    INFERD_InferenceResponse* response = outcome.response.get_future().get();
    outcome.released.get_future().get();
    INFERD_InferenceRequestDelete(request);
    return response;
  }

  TempDir repo_;
  INFERD_Server* server_ = nullptr;
  INFERD_ResponseAllocator* allocator_ = nullptr;
};

TEST_F(ServerApiTest, IdentityModelEchoesItsInput) {
  INFERD_InferenceResponse* response = Infer({7, -8, 9});
  ASSERT_NE(response, nullptr);
  ASSERT_EQ(INFERD_InferenceResponseError(response), nullptr);
  const char* id = nullptr;
  INFERD_InferenceResponseId(response, &id);
  EXPECT_STREQ(id, "req-7");
  uint32_t count = 0;
  INFERD_InferenceResponseOutputCount(response, &count);
  ASSERT_EQ(count, 1u);
  const char* name = nullptr;
  INFERD_DataType datatype;
  const int64_t* shape = nullptr;
  uint64_t dims = 0;
  const void* base = nullptr;
  size_t size = 0;
  ASSERT_EQ(INFERD_InferenceResponseOutput(response, 0, &name, &datatype, &shape, &dims, &base,
                                           &size, nullptr, nullptr, nullptr),
            nullptr);
  EXPECT_STREQ(name, "OUTPUT0");
  EXPECT_EQ(datatype, INFERD_TYPE_INT32);
  ASSERT_EQ(dims, 2u);
  EXPECT_EQ(shape[0], 1);
  EXPECT_EQ(shape[1], 3);
  ASSERT_EQ(size, 12u);
  const int32_t* values = static_cast<const int32_t*>(base);
  EXPECT_EQ(values[0], 7);
  EXPECT_EQ(values[1], -8);
  EXPECT_EQ(values[2], 9);
  INFERD_InferenceResponseDelete(response);
}

// Runs a trace settings call (which fills `message`) and returns its document,
// or "" on error. A callable, so the call runs before `message` is read.
template <typename Call>
std::string TraceCall(Call call) {
  INFERD_Message* message = nullptr;
  INFERD_Error* error = call(&message);
  if (error != nullptr) {
    ADD_FAILURE() << INFERD_ErrorMessage(error);
    INFERD_ErrorDelete(error);
    return "";
  }
  return ToString(message);
}

TEST_F(ServerApiTest, TraceSettingsReadAndUpdateThroughTheCApi) {
  INFERD_Message* message = nullptr;
  auto get = [&](const char* model) {
    return TraceCall(
        [&](INFERD_Message** out) { return INFERD_ServerTraceSettings(server_, model, out); });
  };
  std::string global = get(nullptr);
  EXPECT_NE(global.find(R"("trace_level":["OFF"])"), std::string::npos) << global;
  EXPECT_NE(global.find(R"("trace_rate":"1000")"), std::string::npos) << global;

  std::string model = TraceCall([&](INFERD_Message** out) {
    return INFERD_ServerUpdateTraceSettings(server_, "identity", R"({"trace_count": "3"})", out);
  });
  EXPECT_NE(model.find(R"("trace_count":"3")"), std::string::npos) << model;
  global = get("");
  EXPECT_NE(global.find(R"("trace_count":"-1")"), std::string::npos) << global;

  // No trace file was given, so tracing cannot be turned on; nothing changes.
  INFERD_Error* error = INFERD_ServerUpdateTraceSettings(
      server_, nullptr, R"({"trace_level": ["TIMESTAMPS"], "trace_rate": "2"})", nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(INFERD_ErrorCode(error), INFERD_ERROR_INVALID_ARG);
  INFERD_ErrorDelete(error);
  EXPECT_EQ(get(nullptr), global);

  error = INFERD_ServerTraceSettings(server_, "nobody", &message);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(INFERD_ErrorCode(error), INFERD_ERROR_NOT_FOUND);
  INFERD_ErrorDelete(error);
}

TEST(ServerApiOptionsTest, TraceSettingsAreCheckedWhenSet) {
  INFERD_ServerOptions* options = nullptr;
  ASSERT_EQ(INFERD_ServerOptionsNew(&options), nullptr);
  EXPECT_EQ(INFERD_ServerOptionsSetTraceSetting(options, "rate", "10"), nullptr);
  INFERD_Error* error = INFERD_ServerOptionsSetTraceSetting(options, "rate", "often");
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(INFERD_ErrorCode(error), INFERD_ERROR_INVALID_ARG);
  EXPECT_NE(std::string(INFERD_ErrorMessage(error)).find("often"), std::string::npos);
  INFERD_ErrorDelete(error);
  INFERD_ServerOptionsDelete(options);
}

TEST_F(ServerApiTest, BrokenConfigLeavesThatModelUnavailableAndTheServerReady) {
  // Refused before the model lifecycle, it does not count towards strict
  // readiness (Triton 2.51: a model that fails to poll; lifecycle/readiness.h).
  bool ready = false;
  ASSERT_EQ(INFERD_ServerIsReady(server_, &ready), nullptr);
  EXPECT_TRUE(ready);
  bool live = false;
  INFERD_ServerIsLive(server_, &live);
  EXPECT_TRUE(live);
  INFERD_Message* index = nullptr;
  ASSERT_EQ(INFERD_ServerModelIndex(server_, 0, &index), nullptr);
  std::string json = ToString(index);
  EXPECT_NE(json.find("\"name\":\"broken\""), std::string::npos) << json;
  EXPECT_NE(json.find("UNAVAILABLE"), std::string::npos) << json;
  EXPECT_NE(json.find("config.pbtxt:1:"), std::string::npos) << json;
  bool model_ready = false;
  ASSERT_EQ(INFERD_ServerModelIsReady(server_, "identity", -1, &model_ready), nullptr);
  EXPECT_TRUE(model_ready);
}

TEST_F(ServerApiTest, UnknownModelIsNotFound) {
  INFERD_Message* metadata = nullptr;
  INFERD_Error* error = INFERD_ServerModelMetadata(server_, "nope", -1, &metadata);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(INFERD_ErrorCode(error), INFERD_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(INFERD_ErrorMessage(error)).find("'nope'"), std::string::npos);
  INFERD_ErrorDelete(error);
}

TEST_F(ServerApiTest, ModelMetadataShowsBatchDimension) {
  INFERD_Message* metadata = nullptr;
  ASSERT_EQ(INFERD_ServerModelMetadata(server_, "identity", -1, &metadata), nullptr);
  std::string json = ToString(metadata);
  EXPECT_NE(json.find("\"versions\":[\"1\"]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"shape\":[-1,3]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"datatype\":\"INT32\""), std::string::npos) << json;
}

TEST_F(ServerApiTest, InvalidRequestIsRefusedWithoutCallbacks) {
  INFERD_InferenceRequest* request = nullptr;
  ASSERT_EQ(INFERD_InferenceRequestNew(&request, server_, "identity", -1), nullptr);
  const int64_t shape[] = {1, 3};
  float data[3] = {1, 2, 3};
  INFERD_InferenceRequestAddInput(request, "INPUT0", INFERD_TYPE_FP32, shape, 2);
  INFERD_InferenceRequestAppendInputData(request, "INPUT0", data, sizeof(data),
                                         INFERD_MEMORY_CPU, 0);
  INFERD_InferenceRequestSetResponseCallback(
      request, allocator_, nullptr,
      [](INFERD_InferenceResponse*, uint32_t, void*) { ADD_FAILURE() << "callback ran"; },
      nullptr);
  INFERD_Error* error = INFERD_ServerInferAsync(server_, request);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(INFERD_ErrorCode(error), INFERD_ERROR_INVALID_ARG);
  INFERD_ErrorDelete(error);
  INFERD_InferenceRequestDelete(request);
  // The model still serves good requests.
  INFERD_InferenceResponse* response = Infer({1, 2, 3});
  ASSERT_NE(response, nullptr);
  EXPECT_EQ(INFERD_InferenceResponseError(response), nullptr);
  INFERD_InferenceResponseDelete(response);
}

// Expects `error` to be UNAVAILABLE naming the exit; frees it.
void ExpectExiting(INFERD_Error* error) {
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(INFERD_ErrorCode(error), INFERD_ERROR_UNAVAILABLE);
  EXPECT_NE(std::string(INFERD_ErrorMessage(error)).find("exiting"), std::string::npos);
  INFERD_ErrorDelete(error);
}

TEST_F(ServerApiTest, BeginExitTurnsReadinessOffAndKeepsServing) {
  ASSERT_EQ(INFERD_ServerBeginExit(server_), nullptr);
  ASSERT_EQ(INFERD_ServerBeginExit(server_), nullptr);  // idempotent
  bool ready = true;
  ExpectExiting(INFERD_ServerIsReady(server_, &ready));
  EXPECT_FALSE(ready);
  bool model_ready = true;
  ExpectExiting(INFERD_ServerModelIsReady(server_, "identity", -1, &model_ready));
  EXPECT_FALSE(model_ready);
  bool live = false;
  ASSERT_EQ(INFERD_ServerIsLive(server_, &live), nullptr);
  EXPECT_TRUE(live);
  // An unknown model is still an error, not "not ready".
  INFERD_Error* error = INFERD_ServerModelIsReady(server_, "nope", -1, &model_ready);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(INFERD_ErrorCode(error), INFERD_ERROR_NOT_FOUND);
  INFERD_ErrorDelete(error);
  INFERD_InferenceResponse* response = Infer({1, 2, 3});
  ASSERT_NE(response, nullptr);
  EXPECT_EQ(INFERD_InferenceResponseError(response), nullptr);
  INFERD_InferenceResponseDelete(response);
}

TEST_F(ServerApiTest, StopRefusesNewRequests) {
  ASSERT_EQ(INFERD_ServerStop(server_), nullptr);
  bool ready = true;
  ExpectExiting(INFERD_ServerIsReady(server_, &ready));
  EXPECT_FALSE(ready);
  INFERD_InferenceRequest* request = nullptr;
  INFERD_InferenceRequestNew(&request, server_, "identity", -1);
  INFERD_InferenceRequestSetResponseCallback(
      request, allocator_, nullptr, [](INFERD_InferenceResponse*, uint32_t, void*) {}, nullptr);
  INFERD_Error* error = INFERD_ServerInferAsync(server_, request);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(INFERD_ErrorCode(error), INFERD_ERROR_UNAVAILABLE);
  INFERD_ErrorDelete(error);
  INFERD_InferenceRequestDelete(request);
}

// A request the identity model answers after `delay_ms`, its outcome in `outcome`.
INFERD_InferenceRequest* DelayedRequest(INFERD_Server* server, INFERD_ResponseAllocator* allocator,
                                        int64_t delay_ms, Outcome* outcome) {
  INFERD_InferenceRequest* request = nullptr;
  EXPECT_EQ(INFERD_InferenceRequestNew(&request, server, "identity", -1), nullptr);
  static const int32_t kValues[3] = {1, 2, 3};
  const int64_t shape[] = {1, 3};
  INFERD_InferenceRequestAddInput(request, "INPUT0", INFERD_TYPE_INT32, shape, 2);
  INFERD_InferenceRequestAppendInputData(request, "INPUT0", kValues, sizeof kValues,
                                         INFERD_MEMORY_CPU, 0);
  INFERD_InferenceRequestSetIntParameter(request, "execute_delay_ms", delay_ms);
  INFERD_InferenceRequestSetReleaseCallback(
      request, [](INFERD_InferenceRequest*, uint32_t, void* userp) {
        static_cast<Outcome*>(userp)->released.set_value();
      }, outcome);
  INFERD_InferenceRequestSetResponseCallback(
      request, allocator, nullptr,
      [](INFERD_InferenceResponse* response, uint32_t, void* userp) {
        static_cast<Outcome*>(userp)->response.set_value(response);
      }, outcome);
  return request;
}

TEST(ServerApiInflightTest, ARequestPastTheModelsCapIsRefusedAtOnce) {
  TempDir repo;
  repo.WriteFile("identity/config.pbtxt", kIdentityConfig);
  repo.MakeDir("identity/1");
  INFERD_ServerOptions* options = nullptr;
  ASSERT_EQ(INFERD_ServerOptionsNew(&options), nullptr);
  INFERD_ServerOptionsAddModelRepositoryPath(options, repo.path().c_str());
  INFERD_ServerOptionsSetBackendDirectory(options, INFERD_BINARY_DIR "/backends");
  INFERD_ServerOptionsSetLogInfo(options, false);
  ASSERT_EQ(INFERD_ServerOptionsSetMaxInflightRequestsPerModel(options, 1), nullptr);
  INFERD_Server* server = nullptr;
  INFERD_Error* error = INFERD_ServerNew(&server, options);
  INFERD_ServerOptionsDelete(options);
  ASSERT_EQ(error, nullptr) << INFERD_ErrorMessage(error);
  INFERD_ResponseAllocator* allocator = nullptr;
  ASSERT_EQ(INFERD_ResponseAllocatorNew(&allocator, MallocAlloc, MallocRelease), nullptr);

  // The first request holds the model's one slot for a second.
  Outcome first;
  INFERD_InferenceRequest* held = DelayedRequest(server, allocator, 1000, &first);
  ASSERT_EQ(INFERD_ServerInferAsync(server, held), nullptr);
  Outcome second;
  INFERD_InferenceRequest* refused = DelayedRequest(server, allocator, 0, &second);
  error = INFERD_ServerInferAsync(server, refused);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(INFERD_ErrorCode(error), INFERD_ERROR_UNAVAILABLE);
  const std::string message = INFERD_ErrorMessage(error);
  EXPECT_NE(message.find("model 'identity'"), std::string::npos) << message;
  EXPECT_NE(message.find("--model-max-inflight-requests=1"), std::string::npos) << message;
  INFERD_ErrorDelete(error);
  INFERD_InferenceRequestDelete(refused);

  // Once the first is released, the slot is free again.
  INFERD_InferenceResponseDelete(first.response.get_future().get());
  first.released.get_future().get();
  INFERD_InferenceRequestDelete(held);
  Outcome third;
  INFERD_InferenceRequest* later = DelayedRequest(server, allocator, 0, &third);
  ASSERT_EQ(INFERD_ServerInferAsync(server, later), nullptr);
  INFERD_InferenceResponse* response = third.response.get_future().get();
  EXPECT_EQ(INFERD_InferenceResponseError(response), nullptr);
  INFERD_InferenceResponseDelete(response);
  third.released.get_future().get();
  INFERD_InferenceRequestDelete(later);
  INFERD_ResponseAllocatorDelete(allocator);
  EXPECT_EQ(INFERD_ServerDelete(server), nullptr);
}

TEST(ServerApiOptionsTest, ExitOnErrorFailsTheStartNamingEachFailedModel) {
  TempDir repo;
  repo.WriteFile("identity/config.pbtxt", kIdentityConfig);
  repo.MakeDir("identity/1");
  repo.WriteFile("broken/config.pbtxt", "name: \"broken\" max_batch_size: [oops");
  repo.MakeDir("broken/1");
  INFERD_ServerOptions* options = nullptr;
  ASSERT_EQ(INFERD_ServerOptionsNew(&options), nullptr);
  INFERD_ServerOptionsAddModelRepositoryPath(options, repo.path().c_str());
  INFERD_ServerOptionsSetBackendDirectory(options, INFERD_BINARY_DIR "/backends");
  INFERD_ServerOptionsSetLogInfo(options, false);
  INFERD_ServerOptionsSetLogError(options, false);
  INFERD_Server* server = nullptr;
  INFERD_Error* error = INFERD_ServerNew(&server, options);  // exit on error by default
  INFERD_ServerOptionsDelete(options);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(server, nullptr);
  const std::string message = INFERD_ErrorMessage(error);
  INFERD_ErrorDelete(error);
  EXPECT_NE(message.find("failed to load all models"), std::string::npos) << message;
  EXPECT_NE(message.find("model 'broken': "), std::string::npos) << message;
  EXPECT_NE(message.find("config.pbtxt"), std::string::npos) << message;
  EXPECT_EQ(message.find("model 'identity'"), std::string::npos) << message;
}

TEST(ServerApiOptionsTest, ModelConfigNameMustBeAFileName) {
  INFERD_ServerOptions* options = nullptr;
  ASSERT_EQ(INFERD_ServerOptionsNew(&options), nullptr);
  EXPECT_EQ(INFERD_ServerOptionsSetModelConfigName(options, "big_machine"), nullptr);
  EXPECT_EQ(INFERD_ServerOptionsSetModelConfigName(options, nullptr), nullptr);
  for (const char* bad : {"../x", "a/b", "..", "."}) {
    INFERD_Error* error = INFERD_ServerOptionsSetModelConfigName(options, bad);
    ASSERT_NE(error, nullptr) << bad;
    EXPECT_EQ(INFERD_ErrorCode(error), INFERD_ERROR_INVALID_ARG);
    EXPECT_NE(std::string(INFERD_ErrorMessage(error)).find(bad), std::string::npos);
    INFERD_ErrorDelete(error);
  }
  INFERD_ServerOptionsDelete(options);
}

TEST(ServerApiRepositoryCheckTest, ReportsEachModelWithoutLoadingIt) {
  TempDir repo;
  repo.WriteFile("identity/config.pbtxt", kIdentityConfig);
  repo.MakeDir("identity/1");
  repo.WriteFile("broken/config.pbtxt", "name: \"broken\" max_batch_size: [oops");
  repo.MakeDir("broken/1");
  INFERD_ServerOptions* options = nullptr;
  ASSERT_EQ(INFERD_ServerOptionsNew(&options), nullptr);
  INFERD_ServerOptionsAddModelRepositoryPath(options, repo.path().c_str());
  INFERD_ServerOptionsSetBackendDirectory(options, INFERD_BINARY_DIR "/backends");
  INFERD_Message* report = nullptr;
  INFERD_Error* error = INFERD_RepositoryCheck(options, nullptr, 0, &report);
  INFERD_ServerOptionsDelete(options);
  ASSERT_EQ(error, nullptr) << INFERD_ErrorMessage(error);
  const char* base = nullptr;
  size_t size = 0;
  ASSERT_EQ(INFERD_MessageSerializeToJson(report, &base, &size), nullptr);
  const std::string json(base, size);
  INFERD_MessageDelete(report);
  // By name: broken first, with its reason; identity would load from the build's backend.
  EXPECT_NE(json.find("{\"name\":\"broken\",\"in_repository\":true,\"ok\":false,\"errors\":"
                      "[\"broken: "),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"name\":\"identity\",\"in_repository\":true,\"ok\":true,\"errors\":[],"
                      "\"problems\":[],\"versions\":[1],\"backend\":\"identity\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("libinferd_identity.so"), std::string::npos) << json;
}

TEST(ServerApiRepositoryCheckTest, NeedsARepository) {
  INFERD_ServerOptions* options = nullptr;
  ASSERT_EQ(INFERD_ServerOptionsNew(&options), nullptr);
  INFERD_Message* report = nullptr;
  INFERD_Error* error = INFERD_RepositoryCheck(options, nullptr, 0, &report);
  INFERD_ServerOptionsDelete(options);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(INFERD_ErrorCode(error), INFERD_ERROR_INVALID_ARG);
  INFERD_ErrorDelete(error);
  EXPECT_EQ(report, nullptr);
}

}  // namespace
}  // namespace inferd
