// What an object store is opened with in a unit test: a ScriptedTransport
// (fake_http.h) answering through `responder` as the cloud would, an
// HttpClient that retries without waiting, and credentials read from `env`
// alone (no TRITON_CLOUD_CREDENTIAL_PATH file).
#ifndef INFERD_CORE_TEST_UTIL_FAKE_CLOUD_H_
#define INFERD_CORE_TEST_UTIL_FAKE_CLOUD_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "core/cloud/cloud_credentials.h"
#include "core/cloud/http_client.h"
#include "core/cloud/store_registry.h"
#include "core/test_util/fake_http.h"

namespace inferd {

struct FakeCloud {
  FakeCloud(ScriptedTransport::Responder responder, std::map<std::string, std::string> env = {})
      : transport(std::make_shared<ScriptedTransport>(std::move(responder))),
        http(transport, RetryPolicy{}, &sleeper),
        credentials(CloudCredentials::FromJson("{}", "test", EnvOf(std::move(env))).value()) {}

  StoreContext context() const { return StoreContext{&http, &credentials}; }

  static EnvReader EnvOf(std::map<std::string, std::string> env) {
    return [env = std::move(env)](const std::string& name) -> std::optional<std::string> {
      const auto it = env.find(name);
      if (it == env.end()) return std::nullopt;
      return it->second;
    };
  }

  RecordingSleeper sleeper;
  std::shared_ptr<ScriptedTransport> transport;
  HttpClient http;
  CloudCredentials credentials;
};

// An answer with `status`, `body` and `headers` (names in lower case).
inline HttpResponse CloudAnswer(int status, std::string body, HttpHeaders headers = {}) {
  HttpResponse response = MakeHttpResponse(status, std::move(body));
  response.headers = std::move(headers);
  return response;
}

}  // namespace inferd

#endif  // INFERD_CORE_TEST_UTIL_FAKE_CLOUD_H_
