// The HTML report of a tuning run: one self-contained file (inline style,
// inline SVG, no script, nothing fetched) with the recommendation and its
// config.pbtxt lines, p99 latency against throughput for every setting (one
// line per setting, one mark per concurrency step, the target dashed), the
// best throughput within the target per setting, and the table of every
// point. The document is well-formed XML (XHTML syntax), so tools can parse it.
#ifndef INFERD_TOOLS_TUNE_HTML_REPORT_H_
#define INFERD_TOOLS_TUNE_HTML_REPORT_H_

#include <string>

#include "tune/tune_result.h"

namespace inferd::tune {

std::string HtmlReport(const TuneResult& result);

}  // namespace inferd::tune

#endif  // INFERD_TOOLS_TUNE_HTML_REPORT_H_
