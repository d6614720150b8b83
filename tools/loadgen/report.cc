// Table, CSV and progress formatting of report.h.
#include "loadgen/report.h"

#include <cstdarg>

namespace inferd::loadgen {
namespace {

std::string Format(const char* format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof(line), format, args);
  va_end(args);
  return line;
}

double Ms(int64_t ns) { return double(ns) / 1e6; }
double Us(int64_t ns) { return double(ns) / 1e3; }

}  // namespace

std::string TableHeader(bool open_loop) {
  return Format("%11s %10s %9s %7s %8s %8s %8s %8s %8s %8s", open_loop ? "rate/s" : "concurrency",
                "infer/s", "requests", "errors", "avg ms", "p50 ms", "p90 ms", "p95 ms", "p99 ms",
                "max ms");
}

std::string TableRow(const StepResult& step, int batch_size) {
  const LatencySummary& s = step.summary;
  return Format("%11g %10.1f %9llu %7llu %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f", step.plan.value,
                s.requests_per_second * batch_size, (unsigned long long)s.requests,
                (unsigned long long)s.errors, Ms(s.mean_ns), Ms(s.p50_ns), Ms(s.p90_ns),
                Ms(s.p95_ns), Ms(s.p99_ns), Ms(s.max_ns));
}

std::string CsvHeader() {
  return "mode,concurrency,request_rate,batch_size,infer_per_sec,requests,errors,seconds,"
         "avg_us,min_us,p50_us,p90_us,p95_us,p99_us,max_us,connections";
}

std::string CsvRow(const StepResult& step, int batch_size) {
  const LatencySummary& s = step.summary;
  const bool open = step.plan.open_loop;
  return Format("%s,%s,%s,%d,%.2f,%llu,%llu,%.3f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%zu",
                open ? "open" : "closed", open ? "" : Format("%g", step.plan.value).c_str(),
                open ? Format("%g", step.plan.value).c_str() : "", batch_size,
                s.requests_per_second * batch_size, (unsigned long long)s.requests,
                (unsigned long long)s.errors, s.seconds, Us(s.mean_ns), Us(s.min_ns),
                Us(s.p50_ns), Us(s.p90_ns), Us(s.p95_ns), Us(s.p99_ns), Us(s.max_ns),
                step.connections);
}

std::string ProgressLine(const StepPlan& plan, double elapsed_secs, bool measuring,
                         uint64_t successes, uint64_t errors, double requests_per_second) {
  const double total = plan.warmup_secs + plan.duration_secs;
  return Format("%s %g: %5.1f/%.1f s %-9s %10llu ok %7llu errors %10.1f req/s ",
                plan.open_loop ? "rate" : "concurrency", plan.value, elapsed_secs, total,
                measuring ? "measuring" : "warm-up", (unsigned long long)successes,
                (unsigned long long)errors, requests_per_second);
}

}  // namespace inferd::loadgen
