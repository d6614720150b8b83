// What inferd-loadgen prints: the table on stdout (a header, then one row per
// step as it finishes), the CSV file (one row per step) and the progress line
// on stderr.
#ifndef INFERD_TOOLS_LOADGEN_REPORT_H_
#define INFERD_TOOLS_LOADGEN_REPORT_H_

#include <cstdio>
#include <string>

#include "loadgen/load_driver.h"

namespace inferd::loadgen {

// The table's column header; the first column is the concurrency, or the
// request rate in open-loop mode.
std::string TableHeader(bool open_loop);

// One table row. Inferences per second count `batch_size` per request.
std::string TableRow(const StepResult& step, int batch_size);

// The CSV header and one CSV row (latencies in microseconds).
std::string CsvHeader();
std::string CsvRow(const StepResult& step, int batch_size);

// The progress line (no line break): the step, elapsed time, completions so
// far and the current rate.
std::string ProgressLine(const StepPlan& plan, double elapsed_secs, bool measuring,
                         uint64_t successes, uint64_t errors, double requests_per_second);

}  // namespace inferd::loadgen

#endif  // INFERD_TOOLS_LOADGEN_REPORT_H_
