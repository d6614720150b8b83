#include "shm_region.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <new>

namespace inferd::python {

namespace {
uint64_t PageRound(uint64_t n) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return (n + page - 1) / page * page;
}
}  // namespace

ShmRegion::~ShmRegion() {
  if (base_ != nullptr) munmap(base_, size());
  if (fd_ >= 0) close(fd_);
}

Status ShmRegion::Create(const std::string& name, uint64_t request_bytes, uint64_t ring_bytes) {
  request_bytes_ = PageRound(request_bytes) - kHeaderSize;
  ring_bytes_ = PageRound(ring_bytes);
  fd_ = memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd_ < 0) return Status::Internal("memfd_create: " + std::string(strerror(errno)));
  if (ftruncate(fd_, static_cast<off_t>(size())) != 0) {
    return Status::Internal("ftruncate of the shared memory region to " +
                            std::to_string(size()) + " bytes: " + strerror(errno));
  }
  void* base = mmap(nullptr, size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (base == MAP_FAILED) return Status::Internal("mmap: " + std::string(strerror(errno)));
  base_ = static_cast<char*>(base);
  new (base_) std::atomic<uint64_t>(0);
  const uint64_t ring[2] = {ring_begin(), ring_bytes_};
  std::memcpy(base_ + 8, ring, sizeof ring);
  return Status::Ok();
}

}  // namespace inferd::python
