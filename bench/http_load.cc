// inferd_http_load: a closed-loop HTTP/1.1 load generator for bench/onnx_mlp.py.
// `concurrency` threads each keep one connection and send the same POST back
// to back (a new one as soon as the answer is read), so a Python client's GIL
// never limits what the server is measured at.
//
//   inferd_http_load --port P --path /v2/models/m/infer --body FILE
//                    --header-length N [--concurrency 64] [--warmup 2] [--seconds 10]
//
// FILE is the request body (the binary tensor extension: N bytes of JSON, then
// tensors). Prints one JSON line: {"requests", "errors", "seconds",
// "requests_per_s", "p50_ms", "p99_ms"}, counting answers that completed
// inside the measured window (after the warm-up). Exit status 1 on a setup
// error or when any request failed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

int Connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

bool SendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Reads one response (headers, then Content-Length bytes); true on status 200.
// `buffer` keeps bytes read past the response for the next one.
bool ReadResponse(int fd, std::string& buffer) {
  size_t header_end = std::string::npos;
  char chunk[65536];
  while ((header_end = buffer.find("\r\n\r\n")) == std::string::npos) {
    const ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<size_t>(n));
  }
  std::string head = buffer.substr(0, header_end);
  std::transform(head.begin(), head.end(), head.begin(), ::tolower);
  const bool ok = head.rfind("http/1.1 200", 0) == 0;
  const size_t cl = head.find("content-length:");
  if (cl == std::string::npos) return false;
  const size_t length = std::strtoull(head.c_str() + cl + 15, nullptr, 10);
  const size_t total = header_end + 4 + length;
  while (buffer.size() < total) {
    const ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<size_t>(n));
  }
  buffer.erase(0, total);
  return ok;
}

struct Options {
  int port = 0;
  int concurrency = 64;
  double warmup = 2;
  double seconds = 10;
  std::string path, body_file, header_length;
};

void ParseOptions(int argc, char** argv, Options* options) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const char* value = argv[i + 1];
    if (key == "--port") options->port = std::atoi(value);
    else if (key == "--path") options->path = value;
    else if (key == "--body") options->body_file = value;
    else if (key == "--header-length") options->header_length = value;
    else if (key == "--concurrency") options->concurrency = std::atoi(value);
    else if (key == "--warmup") options->warmup = std::atof(value);
    else if (key == "--seconds") options->seconds = std::atof(value);
  }
}

// The whole POST every connection sends, body read from `options.body_file`;
// empty when the options or the body are missing.
std::string BuildRequest(const Options& options) {
  std::ifstream in(options.body_file, std::ios::binary);
  const std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (options.port <= 0 || options.path.empty() || body.empty() ||
      options.header_length.empty()) {
    return "";
  }
  return "POST " + options.path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
         "Content-Type: application/octet-stream\r\n" +
         "Inference-Header-Content-Length: " + options.header_length + "\r\n" +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// What the connections share: the window, the error count and the latencies.
struct LoadRun {
  Clock::time_point measure_from, stop_at;
  std::atomic<int64_t> errors{0};
  std::mutex mu;
  std::vector<double> latencies_ms;
};

// One connection's closed loop until `run->stop_at`: a request, its answer,
// the next; reconnects after a failure. Keeps the latencies of answers that
// completed inside the measured window.
void ClosedLoop(int port, const std::string& request, LoadRun* run) {
  std::vector<double> mine;
  std::string buffer;
  int fd = Connect(port);
  while (Clock::now() < run->stop_at) {
    if (fd < 0) {
      run->errors.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      fd = Connect(port);
      continue;
    }
    const auto t0 = Clock::now();
    const bool ok = SendAll(fd, request) && ReadResponse(fd, buffer);
    const auto t1 = Clock::now();
    if (!ok) {
      run->errors.fetch_add(1);
      ::close(fd);
      buffer.clear();
      fd = Connect(port);
    } else if (t1 >= run->measure_from && t1 <= run->stop_at) {
      mine.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
  }
  if (fd >= 0) ::close(fd);
  std::lock_guard<std::mutex> lock(run->mu);
  run->latencies_ms.insert(run->latencies_ms.end(), mine.begin(), mine.end());
}

void PrintSummary(LoadRun* run, double seconds) {
  std::vector<double>& latencies_ms = run->latencies_ms;
  std::sort(latencies_ms.begin(), latencies_ms.end());
  auto percentile = [&](double p) {
    if (latencies_ms.empty()) return 0.0;
    const auto index = static_cast<size_t>(p * static_cast<double>(latencies_ms.size()));
    return latencies_ms[std::min(latencies_ms.size() - 1, index)];
  };
  std::printf(
      "{\"requests\": %zu, \"errors\": %lld, \"seconds\": %.3f, \"requests_per_s\": %.1f, "
      "\"p50_ms\": %.3f, \"p99_ms\": %.3f}\n",
      latencies_ms.size(), static_cast<long long>(run->errors.load()), seconds,
      static_cast<double>(latencies_ms.size()) / seconds, percentile(0.50), percentile(0.99));
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  ParseOptions(argc, argv, &options);
  const std::string request = BuildRequest(options);
  if (request.empty()) {
    std::fprintf(stderr,
                 "usage: %s --port P --path PATH --body FILE --header-length N "
                 "[--concurrency C] [--warmup S] [--seconds S]\n",
                 argv[0]);
    return 1;
  }
  LoadRun run;
  run.measure_from = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(options.warmup));
  run.stop_at = run.measure_from + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(options.seconds));
  std::vector<std::thread> threads;
  for (int c = 0; c < options.concurrency; ++c) {
    threads.emplace_back(ClosedLoop, options.port, std::cref(request), &run);
  }
  for (auto& t : threads) t.join();
  PrintSummary(&run, options.seconds);
  return run.errors.load() == 0 ? 0 : 1;
}
