#include "core/cloud/curl_transport.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>

#include "core/cloud/checksum.h"

namespace inferd {
namespace {

// Error bodies are small XML or JSON documents; more is not kept.
constexpr size_t kMaxErrorBody = 64 * 1024;

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// The state of one transfer, shared with curl's callbacks.
struct Transfer {
  const HttpRequest* request = nullptr;
  HttpResponse* response = nullptr;
  int fd = -1;              // the body file, opened at the first byte of a 2xx body
  uint64_t next_offset = 0;
  std::string file_error;   // why writing the file failed
  // BodyFile::checksum: the body's digest so far, fed as the bytes arrive.
  std::optional<ChecksumHasher> hasher;
};

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string_view line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {
    // A new response (after a 100 Continue or a redirect): "HTTP/1.1 200 OK".
    t->response->headers.clear();
    const size_t space = line.find(' ');
    t->response->status =
        space == std::string_view::npos ? 0 : std::atoi(std::string(line.substr(space + 1, 3)).c_str());
    return line.size();
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return line.size();
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
    value.remove_suffix(1);
  t->response->headers.emplace_back(std::move(name), std::string(value));
  return line.size();
}

bool OpenBodyFile(Transfer* t) {
  const BodyFile& file = *t->request->body_file;
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (file.truncate ? O_TRUNC : 0);
  t->fd = ::open(file.path.c_str(), flags, 0644);
  if (t->fd < 0) {
    t->file_error = "cannot write '" + file.path + "': " + std::strerror(errno);
    return false;
  }
  t->next_offset = file.offset;
  const ChecksumKind kind = file.checksum ? file.checksum(*t->response) : ChecksumKind::kNone;
  if (kind != ChecksumKind::kNone) t->hasher.emplace(kind);
  return true;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  const bool to_file = t->request->body_file.has_value() && t->response->status >= 200 &&
                       t->response->status < 300;
  if (!to_file) {
    const size_t room = kMaxErrorBody - std::min(kMaxErrorBody, t->response->body.size());
    t->response->body.append(data, std::min(n, room));
    t->response->body_bytes += n;
    return n;
  }
  if (t->fd < 0 && !OpenBodyFile(t)) return 0;  // 0 aborts the transfer
  size_t done = 0;
  while (done < n) {
    const ssize_t w = ::pwrite(t->fd, data + done, n - done, static_cast<off_t>(t->next_offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      t->file_error = "cannot write '" + t->request->body_file->path + "': " + std::strerror(errno);
      return 0;
    }
    done += static_cast<size_t>(w);
    t->next_offset += static_cast<uint64_t>(w);
  }
  if (t->hasher) t->hasher->Update(data, n);
  t->response->body_bytes += n;
  return n;
}

curl_slist* BuildHeaders(const HttpRequest& request) {
  curl_slist* list = nullptr;
  for (const auto& [name, value] : request.headers) {
    list = curl_slist_append(list, (name + ": " + value).c_str());
  }
  // curl would otherwise add "Expect: 100-continue" to bodies and an Accept.
  list = curl_slist_append(list, "Expect:");
  return list;
}

}  // namespace

CurlTransport::CurlTransport(HttpTimeouts timeouts) : timeouts_(timeouts) { GlobalInitOnce(); }

CurlTransport::~CurlTransport() {
  MutexLock lock(&mu_);
  for (void* handle : idle_) curl_easy_cleanup(static_cast<CURL*>(handle));
}

void* CurlTransport::TakeHandle() {
  {
    MutexLock lock(&mu_);
    if (!idle_.empty()) {
      void* handle = idle_.back();
      idle_.pop_back();
      return handle;
    }
  }
  return curl_easy_init();
}

void CurlTransport::ReturnHandle(void* handle) {
  MutexLock lock(&mu_);
  idle_.push_back(handle);
}

namespace {

// Why a transfer failed: writing the body file, else curl's own words.
std::string TransferError(CURLcode code, const Transfer& transfer, const char* error_buffer) {
  std::string error = !transfer.file_error.empty() ? transfer.file_error
                      : error_buffer[0] != 0      ? std::string(error_buffer)
                                                  : std::string(curl_easy_strerror(code));
  // The connection closed before Content-Length bytes came: say so as the
  // client's own check does (http_client.cc), whichever notices first.
  if (code == CURLE_PARTIAL_FILE) error = "truncated transfer: " + error;
  return error;
}

}  // namespace

HttpResponse CurlTransport::Perform(const HttpRequest& request) {
  HttpResponse response;
  CURL* curl = static_cast<CURL*>(TakeHandle());
  if (curl == nullptr) {
    response.error = "curl_easy_init failed";
    return response;
  }
  curl_easy_reset(curl);  // keeps the connection cache
  Transfer transfer;
  transfer.request = &request;
  transfer.response = &response;
  curl_slist* headers = BuildHeaders(request);
  char error_buffer[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, static_cast<long>(timeouts_.connect.count()));
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, static_cast<long>(timeouts_.stall.count()));
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method != "GET") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  const CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  if (transfer.fd >= 0) ::close(transfer.fd);
  ReturnHandle(curl);
  if (code != CURLE_OK) {
    response.status = 0;
    response.error = TransferError(code, transfer, error_buffer);
    return response;
  }
  response.status = static_cast<int>(status);
  if (response.ok() && request.body_file && request.body_file->truncate && transfer.fd < 0) {
    // An empty object: no body byte ever opened the file.
    if (!OpenBodyFile(&transfer)) {
      response.status = 0;
      response.error = transfer.file_error;
      return response;
    }
    ::close(transfer.fd);
  }
  if (response.ok() && transfer.hasher) response.body_checksum = transfer.hasher->Finish();
  return response;
}

}  // namespace inferd
