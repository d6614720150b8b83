// inferd tune's hold on the model, over the server's HTTP API: checks that
// the server is up and the model ready, reads its configuration, and loads it
// again with a configuration override (POST /v2/repository/models/{m}/load
// with parameters.config, which needs --model-control-mode=explicit). Every
// error names the URL and says what to do. Not thread-safe.
#ifndef INFERD_TOOLS_TUNE_MODEL_CONTROL_H_
#define INFERD_TOOLS_TUNE_MODEL_CONTROL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace inferd::tune {

// What went wrong with a load: `fatal` when nothing more can be loaded (the
// server is gone, the repository API is off or restricted, the model is not
// in the repository); otherwise only this configuration failed, and the
// server keeps serving the previous one.
struct LoadError {
  std::string message;  // "" = loaded
  bool fatal = false;
};

class ModelControl {
 public:
  ModelControl(std::string host, uint16_t port,
               std::vector<std::pair<std::string, std::string>> headers, std::string model);

  // Checks the server is live and the model ready, and reads its
  // configuration JSON. Returns "" or an error.
  std::string FetchConfig(std::string* config_json);

  // Loads the model with `config_json` in place of its config.pbtxt and
  // waits for the load (the server answers once it serves the new
  // configuration or the load failed); *seconds is how long it took.
  LoadError Load(const std::string& config_json, double* seconds);

 private:
  // One request; "" with *status and *body, or the connection error with advice.
  std::string Call(const std::string& method, const std::string& target, const std::string& body,
                   int timeout_secs, int* status, std::string* response);
  // The server's {"error": ...} text, or the body itself.
  static std::string ErrorText(const std::string& body);

  const std::string host_;
  const uint16_t port_;
  const std::vector<std::pair<std::string, std::string>> headers_;
  const std::string model_;
  const std::string model_target_;  // /v2/models/{m}, percent-encoded
};

}  // namespace inferd::tune

#endif  // INFERD_TOOLS_TUNE_MODEL_CONTROL_H_
