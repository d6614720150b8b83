// Fuzz target: the repository API's load overrides, from both frontends,
// through the real server: the HTTP POST /v2/repository/models/{m}/load body
// ({"parameters": {"config": "<JSON>", "file:<path>": "<base64>"}}, read by
// http/endpoints.cc) and the gRPC RepositoryModelLoad parameters (read by
// grpc/repository_handlers.cc), then the server's checks of file paths (no
// '..', no absolute path, no empty name), the override folder it writes, and
// the config override's parsing, normalization and validation.
//
// The server runs in EXPLICIT mode over a repository with one identity
// model, but with an empty backend folder: a load that passes every check
// fails only when the backend is looked for. So no backend code runs on
// fuzzed configurations (the identity backend's test hooks would delete or
// append to files they name), and after every input the fuzzer checks that
// nothing was written outside the server's own temporary folder.
#include <fuzzer/FuzzedDataProvider.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "common/server_error.h"
#include "fuzz/fuzz_server.h"
#include "fuzz/request_text.h"
#include "grpc/repository_handlers.h"
#include "grpc_service.pb.h"
#include "http/base64.h"
#include "http/endpoints.h"
#include "http/router.h"

namespace {

using inferd::fuzz::FuzzServer;
using inferd::fuzz::JsonString;
using inferd::fuzz::UrlEscape;

FuzzServer& Server() {
  static FuzzServer* server = [] {
    // A folder that exists and holds no backend.
    const std::string empty =
        (std::filesystem::temp_directory_path() / "inferd-fuzz-no-backends").string();
    std::filesystem::create_directories(empty);
    inferd::fuzz::FuzzServerOptions options;
    options.models = {{"fp32", inferd::fuzz::IdentityConfig("fp32", "TYPE_FP32", 8)}};
    options.control_mode = INFERD_MODEL_CONTROL_EXPLICIT;
    options.backend_directory = empty;
    return inferd::fuzz::StartFuzzServer(options, 0);
  }();
  return *server;
}

std::string ModelName(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 6)) {
    case 0: return "fp32";
    case 1: return "new_model";
    case 2: return "..";
    case 3: return "a/b";
    case 4: return "";
    default: return in.ConsumeRandomLengthString(12);
  }
}

std::string FilePath(FuzzedDataProvider& in) {
  static const char* const kPaths[] = {
      "1/model.onnx", "config.pbtxt", "../escape",   "/tmp/absolute", "",
      "1/../../x",    "./",           "1/",          ".",             "a/./b/../../../c",
      "1//model",     "..",           "1/..",        "~/x",           "1/\xff\xfe"};
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) return in.ConsumeRandomLengthString(24);
  return kPaths[in.ConsumeIntegralInRange<size_t>(0, std::size(kPaths) - 1)];
}

// A configuration override: a plausible one with fuzzed values, or bytes.
std::string ConfigJson(FuzzedDataProvider& in) {
  if (in.ConsumeIntegralInRange<int>(0, 2) == 0) return in.ConsumeRandomLengthString(128);
  std::string json = "{\"backend\":\"identity\",\"max_batch_size\":" +
                     std::to_string(in.ConsumeIntegral<int32_t>());
  if (in.ConsumeBool()) json += ",\"name\":\"" + ModelName(in) + "\"";
  json += ",\"input\":[{\"name\":\"INPUT0\",\"data_type\":\"" +
          std::string(in.ConsumeBool() ? "TYPE_FP32" : in.ConsumeRandomLengthString(10)) +
          "\",\"dims\":[" + std::to_string(in.ConsumeIntegral<int64_t>()) + "]}]";
  json += ",\"output\":[{\"name\":\"OUTPUT0\",\"data_type\":\"TYPE_FP32\",\"dims\":[-1]}]";
  if (in.ConsumeBool()) {
    json += ",\"version_policy\":{\"specific\":{\"versions\":[" +
            std::to_string(in.ConsumeIntegral<int64_t>()) + "]}}";
  }
  if (in.ConsumeBool()) json += in.ConsumeRandomLengthString(32);
  return json + "}";
}

std::string Base64(const std::string& bytes) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(chunk >> 18) & 63];
    out += kAlphabet[(chunk >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[chunk & 63] : '=';
  }
  return out;
}

void HttpLoad(FuzzedDataProvider& in, const std::string& model) {
  std::string body;
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    body = in.ConsumeRandomLengthString(256);
  } else {
    body = "{\"parameters\":{";
    bool first = true;
    if (in.ConsumeBool()) {
      body += "\"config\":" + JsonString(ConfigJson(in));
      first = false;
    }
    for (int i = in.ConsumeIntegralInRange<int>(0, 3); i > 0; --i) {
      const std::string content = in.ConsumeRandomLengthString(32);
      body += std::string(first ? "" : ",") + JsonString("file:" + FilePath(in)) + ":" +
              (in.ConsumeIntegralInRange<int>(0, 4) == 0 ? JsonString(content)
                                                         : JsonString(Base64(content)));
      first = false;
    }
    body += "}}";
  }
  inferd::http::Route route;
  const std::string target = "/v2/repository/models/" + UrlEscape(model) + "/load";
  if (!inferd::http::MatchRoute(inferd::http::Method::kPost, target, &route).ok()) return;
  (void)inferd::http::HandleEndpoint(Server().server, route, body);
}

void GrpcLoad(FuzzedDataProvider& in, const std::string& model) {
  inference::RepositoryModelLoadRequest request;
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    if (!request.ParseFromString(in.ConsumeRandomLengthString(256))) return;
  } else {
    request.set_model_name(model);
    auto& parameters = *request.mutable_parameters();
    if (in.ConsumeBool()) parameters["config"].set_string_param(ConfigJson(in));
    for (int i = in.ConsumeIntegralInRange<int>(0, 3); i > 0; --i) {
      auto& file = parameters["file:" + FilePath(in)];
      if (in.ConsumeIntegralInRange<int>(0, 4) == 0) file.set_string_param("text");
      else file.set_bytes_param(in.ConsumeRandomLengthString(32));
    }
  }
  (void)inferd::grpc_frontend::LoadModel(Server().server, request);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzServer& server = Server();
  FuzzedDataProvider in(data, size);
  const std::string model = ModelName(in);
  if (in.ConsumeBool()) {
    HttpLoad(in, model);
  } else {
    GrpcLoad(in, model);
  }
  // Nothing loads without a backend; unload anyway so one input's model
  // never shapes the next input's run.
  inferd::DiscardServerError(INFERD_ServerUnloadModel(server.server, model.c_str(), false));
  inferd::fuzz::CheckNothingEscaped(server);
  return 0;
}
