// Registering, mapping and looking up system shared memory regions.
#include "common/shared_memory_registry.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace inferd {
namespace {

std::string Quote(const std::string& text) { return "'" + text + "'"; }

}  // namespace

SharedMemoryRegion::SharedMemoryRegion(std::string name, std::string key, uint64_t offset,
                                       uint64_t byte_size, char* mapping)
    : name_(std::move(name)),
      key_(std::move(key)),
      offset_(offset),
      byte_size_(byte_size),
      mapping_(mapping) {}

SharedMemoryRegion::~SharedMemoryRegion() {
  if (mapping_ != nullptr) munmap(mapping_, offset_ + byte_size_);
}

StatusOr<std::shared_ptr<const SharedMemoryRegion>> SharedMemoryRegion::Map(
    const std::string& name, const std::string& key, uint64_t offset, uint64_t byte_size) {
  const std::string what = "shared memory region " + Quote(name) + " (key " + Quote(key) + ")";
  uint64_t end = 0;
  if (byte_size == 0 || __builtin_add_overflow(offset, byte_size, &end)) {
    return Status::InvalidArg(what + ": byte_size must be positive and offset + " +
                              "byte_size must fit 64 bits");
  }
  const int fd = shm_open(key.c_str(), O_RDWR, 0);
  if (fd < 0) {
    return Status::InvalidArg(what + ": unable to open the shared memory key: " +
                              std::strerror(errno));
  }
  struct stat info {};
  // A mapping past the object's end would fault (SIGBUS) on first touch.
  if (fstat(fd, &info) != 0 || static_cast<uint64_t>(info.st_size) < end) {
    close(fd);
    return Status::InvalidArg(what + ": the object holds " + std::to_string(info.st_size) +
                              " bytes, fewer than offset " + std::to_string(offset) +
                              " + byte_size " + std::to_string(byte_size));
  }
  // Mapped from byte 0, so the offset need not be page-aligned.
  void* mapping = mmap(nullptr, end, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int map_errno = errno;
  close(fd);
  if (mapping == MAP_FAILED) {
    return Status::InvalidArg(what + ": unable to map the memory: " + std::strerror(map_errno));
  }
  return std::shared_ptr<const SharedMemoryRegion>(
      new SharedMemoryRegion(name, key, offset, byte_size, static_cast<char*>(mapping)));
}

SharedMemoryRegistry::SharedMemoryRegistry() : table_(std::make_shared<const Table>()) {}

SharedMemoryRegistry::~SharedMemoryRegistry() = default;

Status SharedMemoryRegistry::Register(const std::string& name, const std::string& key,
                                      uint64_t offset, uint64_t byte_size) {
  if (name.empty()) return Status::InvalidArg("a shared memory region needs a name");
  MutexLock lock(&mu_);
  std::shared_ptr<const Table> current = Snapshot();
  if (current->count(name) != 0) {
    return Status::AlreadyExists("shared memory region " + Quote(name) +
                                 " is already registered");
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const SharedMemoryRegion> region,
                   SharedMemoryRegion::Map(name, key, offset, byte_size));
  auto next = std::make_shared<Table>(*current);
  next->emplace(name, std::move(region));
  table_.store(std::move(next), std::memory_order_release);
  return Status::Ok();
}

Status SharedMemoryRegistry::Unregister(const std::string& name) {
  MutexLock lock(&mu_);
  std::shared_ptr<const Table> current = Snapshot();
  if (!name.empty() && current->count(name) == 0) return Status::Ok();
  auto next = std::make_shared<Table>();
  if (!name.empty()) {
    *next = *current;
    next->erase(name);
  }
  table_.store(std::move(next), std::memory_order_release);
  return Status::Ok();
}

Status SharedMemoryRegistry::List(
    const std::string& name, std::vector<std::shared_ptr<const SharedMemoryRegion>>* regions) const {
  regions->clear();
  std::shared_ptr<const Table> table = Snapshot();
  if (name.empty()) {
    for (const auto& [region_name, region] : *table) regions->push_back(region);
    return Status::Ok();
  }
  const auto found = table->find(name);
  if (found == table->end()) {
    return Status::NotFound("shared memory region " + Quote(name) + " is not registered");
  }
  regions->push_back(found->second);
  return Status::Ok();
}

Status SharedMemoryRegistry::Slice(const std::string& name, uint64_t offset, uint64_t byte_size,
                                   const std::string& what, SharedMemorySlice* slice) const {
  std::shared_ptr<const Table> table = Snapshot();
  const auto found = table->find(name);
  if (found == table->end()) {
    return Status::InvalidArg(what + ": shared memory region " + Quote(name) +
                              " is not registered");
  }
  const SharedMemoryRegion& region = *found->second;
  uint64_t end = 0;
  if (__builtin_add_overflow(offset, byte_size, &end) || end > region.byte_size()) {
    return Status::InvalidArg(what + ": offset " + std::to_string(offset) + " + byte_size " +
                              std::to_string(byte_size) +
                              " runs past the end of shared memory region " + Quote(name) + " (" +
                              std::to_string(region.byte_size()) + " bytes)");
  }
  slice->region = found->second;
  slice->data = region.data() + offset;
  slice->byte_size = byte_size;
  slice->offset = offset;
  return Status::Ok();
}

}  // namespace inferd
