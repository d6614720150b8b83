#include "core/stats/cpu_metrics.h"

#include <fstream>
#include <sstream>

namespace inferd {

bool ParseProcStat(std::string_view text, CpuTimes* out) {
  const size_t end = text.find('\n');
  std::istringstream line(std::string(text.substr(0, end)));
  std::string name;
  if (!(line >> name) || name != "cpu") return false;
  CpuTimes times;
  uint64_t* fields[] = {&times.user,   &times.nice, &times.system,  &times.idle,
                        &times.iowait, &times.irq,  &times.softirq, &times.steal};
  int read = 0;
  for (uint64_t* field : fields) {
    if (!(line >> *field)) break;
    ++read;
  }
  if (read < 4) return false;  // user nice system idle at least (older kernels lack the rest)
  *out = times;
  return true;
}

bool ParseMeminfo(std::string_view text, MemoryBytes* out) {
  std::istringstream lines{std::string(text)};
  std::string line;
  bool have_total = false, have_available = false;
  uint64_t total_kb = 0, available_kb = 0;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string name;
    uint64_t kb = 0;
    if (!(fields >> name >> kb)) continue;
    if (name == "MemTotal:") {
      total_kb = kb;
      have_total = true;
    } else if (name == "MemAvailable:") {
      available_kb = kb;
      have_available = true;
    }
  }
  if (!have_total || !have_available || available_kb > total_kb) return false;
  out->total = total_kb * 1024;
  out->used = (total_kb - available_kb) * 1024;
  return true;
}

double CpuUtilization(const CpuTimes& now, const CpuTimes& before) {
  // A counter that went back (a CPU taken offline) counts as no time.
  const auto passed = [](uint64_t a, uint64_t b) { return a > b ? a - b : 0; };
  const uint64_t busy = passed(now.user, before.user) + passed(now.nice, before.nice) +
                        passed(now.system, before.system) + passed(now.irq, before.irq) +
                        passed(now.softirq, before.softirq) + passed(now.steal, before.steal);
  const uint64_t idle = passed(now.idle, before.idle) + passed(now.iowait, before.iowait);
  if (busy + idle == 0) return 0;
  return static_cast<double>(busy) / static_cast<double>(busy + idle);
}

std::string ReadProcFile(const char* path) {
  std::ifstream file(path);
  if (!file) return {};
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

CpuMetricsSampler::CpuMetricsSampler(const Clock& clock, uint64_t interval_ns, ProcReader reader)
    : clock_(clock), interval_ns_(interval_ns > 0 ? interval_ns : 1), reader_(std::move(reader)) {
  Sample();
  thread_ = std::thread([this] { Run(); });
}

CpuMetricsSampler::~CpuMetricsSampler() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
    cv_.SignalAll();
  }
  thread_.join();
}

CpuMetricsSampler::Values CpuMetricsSampler::Read() const {
  MutexLock lock(&mu_);
  return values_;
}

void CpuMetricsSampler::Sample() {
  CpuTimes times;
  const bool have_times = ParseProcStat(reader_("/proc/stat"), &times);
  MemoryBytes memory;
  const bool have_memory = ParseMeminfo(reader_("/proc/meminfo"), &memory);
  MutexLock lock(&mu_);
  // A file that cannot be read shows as 0, as Triton reports it.
  values_.utilization = have_times && have_times_ ? CpuUtilization(times, last_times_) : 0;
  if (have_times) last_times_ = times;
  have_times_ = have_times;
  values_.memory_total_bytes = have_memory ? memory.total : 0;
  values_.memory_used_bytes = have_memory ? memory.used : 0;
  ++values_.samples;
}

void CpuMetricsSampler::Run() {
  uint64_t next = clock_.NowNs() + interval_ns_;
  for (;;) {
    {
      MutexLock lock(&mu_);
      while (!stop_ && clock_.NowNs() < next) clock_.WaitUntil(&cv_, &mu_, next);
      if (stop_) return;
    }
    Sample();
    // After a stall, the next sample is one interval from now, not a burst.
    next += interval_ns_;
    if (const uint64_t now = clock_.NowNs(); next <= now) next = now + interval_ns_;
  }
}

}  // namespace inferd
