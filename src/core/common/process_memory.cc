#include "core/common/process_memory.h"

#include <dirent.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace inferd {
namespace {

uint64_t PageSize() {
  static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return page;
}

uint64_t ResidentBytesAt(const std::string& statm) {
  std::ifstream in(statm);
  uint64_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  return resident * PageSize();
}

// The parent pid of every process /proc lists (field 4 of stat; the command
// name in field 2 may hold spaces and parentheses, so parse after its last ')').
std::multimap<int, int> ChildrenByParent() {
  std::multimap<int, int> children;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return children;
  while (dirent* entry = readdir(proc)) {
    int pid = 0;
    const char* name = entry->d_name;
    auto [end, ec] = std::from_chars(name, name + std::char_traits<char>::length(name), pid);
    if (ec != std::errc() || *end != '\0') continue;
    std::ifstream in(std::string("/proc/") + name + "/stat");
    std::string line;
    if (!std::getline(in, line)) continue;
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    char state = 0;
    int parent = 0;
    if (rest >> state >> parent) children.emplace(parent, pid);
  }
  closedir(proc);
  return children;
}

uint64_t ReadLimit(const char* path) {
  std::ifstream in(path);
  std::string value;
  if (!(in >> value) || value == "max") return 0;
  uint64_t bytes = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), bytes);
  if (ec != std::errc()) return 0;
  // cgroup v1 says "no limit" with a huge value (LONG_MAX rounded to pages).
  return bytes >= (uint64_t{1} << 60) ? 0 : bytes;
}

}  // namespace

uint64_t ResidentBytesOf(int pid) {
  return ResidentBytesAt("/proc/" + std::to_string(pid) + "/statm");
}

uint64_t ProcessTreeResidentBytes() {
  uint64_t total = ResidentBytesAt("/proc/self/statm");
  const std::multimap<int, int> children = ChildrenByParent();
  std::vector<int> pending{static_cast<int>(getpid())};
  while (!pending.empty()) {
    const int parent = pending.back();
    pending.pop_back();
    auto [first, last] = children.equal_range(parent);
    for (auto child = first; child != last; ++child) {
      total += ResidentBytesOf(child->second);
      pending.push_back(child->second);
    }
  }
  return total;
}

uint64_t MemoryLimitBytes() {
  for (const char* path : {"/sys/fs/cgroup/memory.max",
                           "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    if (const uint64_t limit = ReadLimit(path); limit != 0) return limit;
  }
  return static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * PageSize();
}

StatusOr<uint64_t> ParseMemoryBudget(std::string_view value, uint64_t limit_bytes) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArg("--model-memory-budget=" + std::string(value) + ": " + why +
                              " (give bytes, e.g. 2147483648 or 2Gi, or a percentage of the "
                              "memory limit, e.g. 60%)");
  };
  double number = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec != std::errc() || !std::isfinite(number) || number <= 0) {
    return bad("not a positive number");
  }
  const std::string_view suffix(end, value.data() + value.size() - end);
  if (suffix == "%") {
    if (number > 100) return bad("a percentage above 100");
    return static_cast<uint64_t>(static_cast<double>(limit_bytes) * number / 100);
  }
  static const std::map<std::string_view, double> kUnits = {
      {"", 1},          {"K", 1e3},         {"M", 1e6},         {"G", 1e9},
      {"Ki", 1024.0},   {"Mi", 1048576.0},  {"Gi", 1073741824.0}};
  auto unit = kUnits.find(suffix);
  if (unit == kUnits.end()) return bad("unknown unit '" + std::string(suffix) + "'");
  const double bytes = number * unit->second;
  if (bytes < 1 || bytes > 1.8e19) return bad("out of range");
  return static_cast<uint64_t>(bytes);
}

}  // namespace inferd
