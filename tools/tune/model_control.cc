// ModelControl (model_control.h) on loadgen's blocking HTTP exchange.
#include "tune/model_control.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>

#include "loadgen/blocking_http.h"
#include "loadgen/http_request.h"

namespace inferd::tune {
namespace {

constexpr int kQuickTimeoutSecs = 10;
constexpr int kLoadTimeoutSecs = 600;  // a large model's load, warm-up included

// The advice that goes with a status the repository or config calls answer.
std::string Advice(int status) {
  if (status == 403) return " (pass the restricted API's key with --header 'NAME: VALUE')";
  return "";
}

// {"parameters": {"config": "<config_json>"}}
std::string LoadBody(const std::string& config_json) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("parameters");
  w.StartObject();
  w.Key("config");
  w.String(config_json.c_str(), static_cast<rapidjson::SizeType>(config_json.size()));
  w.EndObject();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace

ModelControl::ModelControl(std::string host, uint16_t port,
                           std::vector<std::pair<std::string, std::string>> headers, std::string model)
    : host_(std::move(host)),
      port_(port),
      headers_(std::move(headers)),
      model_(std::move(model)),
      model_target_(loadgen::ModelTarget(model_, "", "")) {}

std::string ModelControl::ErrorText(const std::string& body) {
  rapidjson::Document doc;
  doc.Parse(body.c_str(), body.size());
  if (!doc.HasParseError() && doc.IsObject() && doc.HasMember("error") && doc["error"].IsString()) {
    return doc["error"].GetString();
  }
  return body.substr(0, 300);
}

std::string ModelControl::Call(const std::string& method, const std::string& target,
                               const std::string& body, int timeout_secs, int* status,
                               std::string* response) {
  loadgen::HttpExchange exchange{method, target, body, headers_, timeout_secs};
  const std::string error = loadgen::BlockingHttp(host_, port_, exchange, status, response);
  if (error.empty()) return "";
  return "cannot reach the server: " + error + " (is inferd running there? --url names its HTTP endpoint)";
}

std::string ModelControl::FetchConfig(std::string* config_json) {
  int status = 0;
  std::string body;
  if (std::string error = Call("GET", "/v2/health/live", "", kQuickTimeoutSecs, &status, &body);
      !error.empty()) {
    return error;
  }
  const std::string url = "http://" + host_ + ":" + std::to_string(port_);
  if (std::string error = Call("GET", model_target_, "", kQuickTimeoutSecs, &status, &body); !error.empty()) {
    return error;
  }
  if (status != 200) {
    return "model '" + model_ + "' at " + url + ": HTTP " + std::to_string(status) + ": " +
           ErrorText(body) + Advice(status);
  }
  if (std::string error = Call("GET", model_target_ + "/ready", "", kQuickTimeoutSecs, &status, &body);
      !error.empty()) {
    return error;
  }
  if (status != 200) {
    return "model '" + model_ + "' is not ready at " + url + ": load it first (POST /v2/repository/models/" +
           model_ + "/load)";
  }
  if (std::string error = Call("GET", model_target_ + "/config", "", kQuickTimeoutSecs, &status, config_json);
      !error.empty()) {
    return error;
  }
  if (status != 200) {
    return "GET " + url + model_target_ + "/config: HTTP " + std::to_string(status) + ": " +
           ErrorText(*config_json) + Advice(status);
  }
  return "";
}

LoadError ModelControl::Load(const std::string& config_json, double* seconds) {
  const std::string target = "/v2/repository" + model_target_.substr(3) + "/load";
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  std::string body;
  std::string error = Call("POST", target, LoadBody(config_json), kLoadTimeoutSecs, &status, &body);
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!error.empty()) return {error, true};
  if (status == 200) return {};
  std::string message = "POST " + target + ": HTTP " + std::to_string(status) + ": " + ErrorText(body);
  if (status == 503 && message.find("model-control-mode") == std::string::npos) {
    message += " (tune reloads the model through the repository API: start the server with "
               "--model-control-mode=explicit)";
  }
  message += Advice(status);
  // 400 and 500 are this configuration's own failure; the previous one keeps serving.
  return {message, status != 400 && status != 500};
}

}  // namespace inferd::tune
