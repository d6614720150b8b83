// The report page of html_report.h.
#include "tune/html_report.h"

#include <cctype>
#include <cstdio>

#include "tune/config_override.h"
#include "tune/progress.h"
#include "tune/summary.h"
#include "tune/svg_plot.h"

namespace inferd::tune {
namespace {

constexpr const char* kStyle = R"(body { font-family: sans-serif; margin: 2em; color: #222; max-width: 1100px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; } td, th { padding: 3px 10px; border-bottom: 1px solid #ddd; text-align: right; }
th { background: #f4f4f4; } tr.best td { font-weight: bold; background: #fff3e0; }
tr.miss td { color: #888; } td.note { text-align: left; }
pre { background: #f6f8fa; padding: 0.8em; border: 1px solid #ddd; }
.box { border: 2px solid #D55E00; padding: 0.6em 1em; background: #fffaf5; }
.warn { color: #a00; })";

std::string Header(const TuneResult& r) {
  std::string html = "<h1>inferd tune: " + XmlEscape(r.model) + "</h1>\n<p>Server " + XmlEscape(r.server) +
                     "; " + XmlEscape(r.mode) + ": " + std::to_string(r.points.size()) + " of " +
                     std::to_string(r.grid_size) + " settings measured in " + FormatFixed(r.seconds, 0) +
                     " s" + (r.interrupted ? " (interrupted)" : "") + "; p99 latency target " +
                     FormatFixed(r.latency_target_ms, 2) + " ms. Original setting: " +
                     XmlEscape(r.original.Describe()) + ".</p>\n";
  std::string note = r.restore_note;
  if (!note.empty()) note[0] = char(std::toupper(static_cast<unsigned char>(note[0])));
  html += std::string("<p") + (r.restored ? "" : " class=\"warn\"") + ">" + XmlEscape(note) + ".</p>\n";
  return html;
}

std::string Recommendation(const TuneResult& r) {
  const PointResult* best = r.recommended();
  if (best == nullptr) {
    return "<div class=\"box\"><p class=\"warn\">No setting kept p99 within " +
           FormatFixed(r.latency_target_ms, 2) + " ms. Raise the target, or try lower batch sizes and queue "
           "delays; the table shows the lowest p99 of each setting.</p></div>\n";
  }
  return "<div class=\"box\" id=\"recommendation\"><p><b>Recommended: " + XmlEscape(best->setting.Describe()) +
         "</b>: " + XmlEscape(DescribeScore(*best, r.latency_target_ms)) +
         ".</p>\n<p>In config.pbtxt (replacing these fields):</p>\n<pre>" +
         XmlEscape(ConfigSnippet(r.original_config_json, best->setting)) + "</pre></div>\n";
}

std::string LatencyPlot(const TuneResult& r) {
  std::vector<Series> series;
  for (size_t i = 0; i < r.points.size(); ++i) {
    const PointResult& point = r.points[i];
    if (point.steps.empty()) continue;
    Series s{point.setting.Short(), {}, r.has_recommendation && i == r.best};
    for (const StepMeasurement& step : point.steps) {
      s.points.push_back({step.throughput, step.p99_ms, "c" + std::to_string(step.concurrency),
                          "concurrency " + std::to_string(step.concurrency) + ", " +
                              FormatFixed(step.throughput, 1) + " infer/s, p99 " + FormatFixed(step.p99_ms, 2) + " ms"});
    }
    series.push_back(std::move(s));
  }
  LineChart chart{"p99 latency vs throughput (max_batch_size/delay us/instances)", "throughput (infer/s)",
                  "p99 latency (ms)", r.latency_target_ms, "target " + FormatFixed(r.latency_target_ms, 2) + " ms"};
  return LineChartSvg(chart, series);
}

std::string ThroughputPlot(const TuneResult& r, const std::vector<size_t>& ranked) {
  std::vector<Bar> bars;
  for (size_t i : ranked) {
    const PointResult& point = r.points[i];
    // A setting that misses the target shows its lowest-latency step's throughput, greyed.
    const double value = point.best_step < point.steps.size() ? point.steps[point.best_step].throughput : 0;
    Bar bar{point.setting.Short(), value, point.setting.Describe() + ": " +
            DescribeScore(point, r.latency_target_ms), r.has_recommendation && i == r.best, !point.score.feasible};
    bars.push_back(std::move(bar));
  }
  return BarChartSvg("Best throughput within the target, per setting (max_batch_size/delay us/instances)",
                     "throughput (infer/s); grey: misses the target (its lowest-p99 step) or failed", bars);
}

std::string PointRow(const TuneResult& r, size_t i, size_t rank) {
  const PointResult& p = r.points[i];
  const bool best = r.has_recommendation && i == r.best;
  std::string row = std::string("<tr") + (best ? " class=\"best\"" : p.score.feasible ? "" : " class=\"miss\"") +
                    "><td>" + std::to_string(rank) + "</td><td>" + std::to_string(p.setting.max_batch_size) +
                    "</td><td>" + std::to_string(p.setting.queue_delay_us) + "</td><td>" +
                    std::to_string(p.setting.instances) + "</td>";
  if (p.best_step < p.steps.size()) {
    const StepMeasurement& s = p.steps[p.best_step];
    row += "<td>" + FormatFixed(s.throughput, 1) + "</td><td>" + FormatFixed(s.p50_ms, 2) + "</td><td>" + FormatFixed(s.p99_ms, 2) +
           "</td><td>" + std::to_string(s.concurrency) + "</td>";
  } else {
    row += "<td></td><td></td><td></td><td></td>";
  }
  const std::string note = !p.error.empty() ? p.error : p.score.feasible ? "" : "misses the target";
  return row + "<td>" + FormatFixed(p.load_secs, 2) + "</td><td>" + std::to_string(p.steps.size()) +
         "</td><td class=\"note\">" + XmlEscape(note) + "</td></tr>\n";
}

std::string Table(const TuneResult& r, const std::vector<size_t>& ranked) {
  std::string html = "<table id=\"points\">\n<tr><th>rank</th><th>max_batch_size</th><th>queue delay (us)</th>"
                     "<th>instances</th><th>infer/s</th><th>p50 (ms)</th><th>p99 (ms)</th><th>concurrency</th>"
                     "<th>load (s)</th><th>steps</th><th>note</th></tr>\n";
  for (size_t rank = 0; rank < ranked.size(); ++rank) html += PointRow(r, ranked[rank], rank + 1);
  return html + "</table>\n";
}

constexpr const char* kReading = R"(<h2>Reading the report</h2>
<p>Each setting was loaded through the repository API with a configuration override, warmed up,
and measured with a closed-loop load: each mark of the first plot is one concurrency (requests
in flight), its throughput across and its 99th-percentile latency up; the recommended setting's
line is thick, its marks labelled with their concurrency (c8: 8 requests in flight). A line that climbs steeply
has reached its throughput ceiling; more load only queues. The recommendation is the setting
whose best step within the target has the highest throughput; its row in the table names that
step. Points far above the target sit on the top edge of the plot (their tooltips give the
values). Measurements on a busy machine vary by several percent: settings within a few percent
of each other are equally good.</p>
)";

}  // namespace

std::string HtmlReport(const TuneResult& result) {
  const std::vector<size_t> ranked = RankPoints(result);
  std::string html = "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
                     "<meta charset=\"utf-8\"/>\n<title>inferd tune: " + XmlEscape(result.model) +
                     "</title>\n<style>\n" + kStyle + "\n</style>\n</head>\n<body>\n";
  html += Header(result) + Recommendation(result);
  html += "<h2>Latency against throughput</h2>\n<div class=\"plot\" id=\"latency-plot\">\n" + LatencyPlot(result) + "</div>\n";
  html += "<h2>Throughput per setting</h2>\n<div class=\"plot\" id=\"throughput-plot\">\n" +
          ThroughputPlot(result, ranked) + "</div>\n";
  html += "<h2>Every point</h2>\n" + Table(result, ranked) + kReading;
  return html + "</body>\n</html>\n";
}

}  // namespace inferd::tune
