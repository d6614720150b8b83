// What inferd tune prints on stdout at the end: every measured point ranked,
// the recommendation with the config.pbtxt lines that keep it, and what was
// left loaded. Also the ranking the HTML report's table shows.
#ifndef INFERD_TOOLS_TUNE_SUMMARY_H_
#define INFERD_TOOLS_TUNE_SUMMARY_H_

#include <cstddef>
#include <string>
#include <vector>

#include "tune/tune_result.h"

namespace inferd::tune {

// Indexes of result.points, best first (feasible by throughput, then the
// rest by p99, failed loads last).
std::vector<size_t> RankPoints(const TuneResult& result);

std::string SummaryText(const TuneResult& result);

}  // namespace inferd::tune

#endif  // INFERD_TOOLS_TUNE_SUMMARY_H_
