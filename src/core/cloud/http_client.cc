#include "core/cloud/http_client.h"

#include <algorithm>
#include <cstdlib>
#include <random>
#include <thread>

#include "core/common/logging.h"

namespace inferd {
namespace {

class RealSleeper final : public Sleeper {
 public:
  void Sleep(std::chrono::nanoseconds duration) override { std::this_thread::sleep_for(duration); }
};

double ThreadLocalRandom01() {
  thread_local std::mt19937_64 generator{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(generator);
}

// A success whose body is shorter (or longer) than promised: a cut connection.
void MarkTruncated(const HttpRequest& request, HttpResponse* response) {
  if (!response->ok() || !request.expected_body_bytes) return;
  if (response->body_bytes == *request.expected_body_bytes) return;
  response->error = "truncated transfer: " + std::to_string(response->body_bytes) + " of " +
                    std::to_string(*request.expected_body_bytes) + " bytes";
  response->status = 0;
}

}  // namespace

std::string HttpResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return "";
}

Sleeper& Sleeper::Real() {
  static RealSleeper sleeper;
  return sleeper;
}

HttpClient::HttpClient(std::shared_ptr<HttpTransport> transport, RetryPolicy policy,
                       Sleeper* sleeper, std::function<double()> random01)
    : transport_(std::move(transport)),
      policy_(policy),
      sleeper_(sleeper),
      random01_(random01 ? std::move(random01) : ThreadLocalRandom01) {}

bool HttpClient::IsRetryable(const HttpResponse& response) {
  const int s = response.status;
  return s == 0 || s == 408 || s == 429 || s >= 500;
}

std::chrono::nanoseconds HttpClient::Backoff(int retry, const HttpResponse& response) const {
  using std::chrono::nanoseconds;
  const int doublings = std::min(retry - 1, 30);
  const nanoseconds cap = std::min<nanoseconds>(policy_.max_backoff,
                                                policy_.initial_backoff * (int64_t{1} << doublings));
  // "Equal jitter": at least half the cap, so retries always back off, and a
  // random rest, so replicas throttled together do not retry together.
  const auto half = cap / 2;
  nanoseconds wait = half + nanoseconds(static_cast<int64_t>(random01_() * half.count()));
  const std::string retry_after = response.Header("retry-after");
  if (!retry_after.empty()) {
    const long seconds = std::strtol(retry_after.c_str(), nullptr, 10);
    if (seconds > 0) {
      wait = std::max<nanoseconds>(wait, std::chrono::seconds(seconds));
      wait = std::min<nanoseconds>(wait, policy_.max_backoff);
    }
  }
  return wait;
}

StatusOr<HttpResponse> HttpClient::Send(HttpRequest request, const RequestSigner& sign) const {
  const HttpHeaders unsigned_headers = request.headers;
  HttpResponse response;
  for (int attempt = 1;; ++attempt) {
    request.headers = unsigned_headers;
    if (sign) RETURN_IF_ERROR(sign(&request));
    response = transport_->Perform(request);
    MarkTruncated(request, &response);
    response.attempts = attempt;
    if (!IsRetryable(response) || attempt >= policy_.max_attempts) return response;
    const auto wait = Backoff(attempt, response);
    LOG_VERBOSE(1, "{} {}: {} (attempt {} of {}), retrying in {} ms", request.method,
                request.url,
                response.status != 0 ? "HTTP " + std::to_string(response.status) : response.error,
                attempt, policy_.max_attempts,
                std::chrono::duration_cast<std::chrono::milliseconds>(wait).count());
    sleeper_->Sleep(wait);
  }
}

}  // namespace inferd
