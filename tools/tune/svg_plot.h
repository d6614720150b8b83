// Self-contained SVG charts for the tuning report (no script, no external
// font or stylesheet): a line chart with one series per setting and an
// optional horizontal reference line (the latency target), and a horizontal
// bar chart. Every mark carries a <title> (the browser's tooltip). The output
// is well-formed XML.
#ifndef INFERD_TOOLS_TUNE_SVG_PLOT_H_
#define INFERD_TOOLS_TUNE_SVG_PLOT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferd::tune {

struct PlotPoint {
  double x = 0;
  double y = 0;
  std::string tag;  // written beside the mark of a highlighted series
  std::string tip;  // the point's tooltip
};

struct Series {
  std::string label;
  std::vector<PlotPoint> points;  // joined in this order
  bool highlight = false;         // drawn thicker, on top
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::optional<double> reference_y;  // a dashed horizontal line
  std::string reference_label;
};

struct Bar {
  std::string label;
  double value = 0;
  std::string tip;
  bool highlight = false;
  bool muted = false;  // drawn grey (e.g. misses the target)
};

std::string LineChartSvg(const LineChart& chart, const std::vector<Series>& series);
std::string BarChartSvg(const std::string& title, const std::string& value_label,
                        const std::vector<Bar>& bars);

// Escapes & < > " ' for text and attribute values.
std::string XmlEscape(std::string_view text);

// Tick positions for an axis from 0 to `max` (> 0): 4 to 8 round values.
std::vector<double> Ticks(double max);

}  // namespace inferd::tune

#endif  // INFERD_TOOLS_TUNE_SVG_PLOT_H_
