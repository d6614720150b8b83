// The SVG drawing of svg_plot.h: fixed layouts, linear axes from 0.
#include "tune/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace inferd::tune {
namespace {

// Colour-blind-safe categories (Okabe-Ito with black for its yellow, which
// vanishes on white, then Tol's muted); series past them repeat the colours dashed.
constexpr const char* kColors[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
                                   "#D55E00", "#000000", "#332288", "#882255", "#44AA99",
                                   "#999933", "#AA4499"};
constexpr size_t kColorCount = sizeof(kColors) / sizeof(kColors[0]);

constexpr double kLeft = 70, kTop = 40, kPlotWidth = 600, kPlotHeight = 360;
constexpr double kLegendRow = 16;

std::string Num(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", value);
  return text;
}

std::string Label(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

std::string Text(double x, double y, std::string_view text, const char* extra = "") {
  return "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\"" + extra + ">" + XmlEscape(text) + "</text>\n";
}

// The axes, grid lines and tick labels for [0, x_max] x [0, y_max].
std::string Axes(const std::vector<double>& x_ticks, double x_max, const std::vector<double>& y_ticks,
                 double y_max) {
  std::string svg;
  for (double y : y_ticks) {
    const double py = kTop + kPlotHeight * (1 - y / y_max);
    svg += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(py) + "\" x2=\"" + Num(kLeft + kPlotWidth) +
           "\" y2=\"" + Num(py) + "\" stroke=\"#ddd\"/>\n";
    svg += Text(kLeft - 6, py + 4, Label(y), " text-anchor=\"end\"");
  }
  for (double x : x_ticks) {
    const double px = kLeft + kPlotWidth * x / x_max;
    svg += "<line x1=\"" + Num(px) + "\" y1=\"" + Num(kTop) + "\" x2=\"" + Num(px) + "\" y2=\"" +
           Num(kTop + kPlotHeight) + "\" stroke=\"#eee\"/>\n";
    svg += Text(px, kTop + kPlotHeight + 16, Label(x), " text-anchor=\"middle\"");
  }
  svg += "<rect x=\"" + Num(kLeft) + "\" y=\"" + Num(kTop) + "\" width=\"" + Num(kPlotWidth) +
         "\" height=\"" + Num(kPlotHeight) + "\" fill=\"none\" stroke=\"#444\"/>\n";
  return svg;
}

std::string Open(double width, double height, const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(width) + "\" height=\"" +
         Num(height) + "\" viewBox=\"0 0 " + Num(width) + " " + Num(height) +
         "\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n<title>" + XmlEscape(title) +
         "</title>\n" + Text(kLeft, 20, title, " font-size=\"15\" font-weight=\"bold\"");
}

// One series: its polyline, its markers with tooltips, and its legend row.
std::string DrawSeries(const Series& s, size_t index, double x_max, double y_max, double legend_x) {
  const std::string color = kColors[index % kColorCount];
  const std::string dash = index >= kColorCount ? " stroke-dasharray=\"6 3\"" : "";
  const std::string width = s.highlight ? "3.5" : "1.5";
  std::string svg = "<g class=\"series\"><title>" + XmlEscape(s.label) + "</title>\n<polyline fill=\"none\" stroke=\"" +
                    color + "\" stroke-width=\"" + width + "\"" + dash + " points=\"";
  std::string marks;
  for (const PlotPoint& p : s.points) {
    const double px = kLeft + kPlotWidth * std::clamp(p.x / x_max, 0.0, 1.0);
    const double py = kTop + kPlotHeight * (1 - std::clamp(p.y / y_max, 0.0, 1.0));
    svg += Num(px) + "," + Num(py) + " ";
    marks += "<circle cx=\"" + Num(px) + "\" cy=\"" + Num(py) + "\" r=\"" + (s.highlight ? "5" : "3.5") +
             "\" fill=\"" + color + "\"><title>" + XmlEscape(s.label + ": " + p.tip) + "</title></circle>\n";
    if (s.highlight && !p.tag.empty()) marks += Text(px + 7, py - 6, p.tag, " font-size=\"11\"");
  }
  svg += "\"/>\n" + marks + "</g>\n";
  const double ly = kTop + kLegendRow * double(index) + 8;
  svg += "<line x1=\"" + Num(legend_x) + "\" y1=\"" + Num(ly - 4) + "\" x2=\"" + Num(legend_x + 22) +
         "\" y2=\"" + Num(ly - 4) + "\" stroke=\"" + color + "\" stroke-width=\"" + width + "\"" + dash + "/>\n";
  svg += Text(legend_x + 28, ly, s.label, s.highlight ? " font-weight=\"bold\"" : "");
  return svg;
}

}  // namespace

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::vector<double> Ticks(double max) {
  const double rough = max / 5;
  const double magnitude = std::pow(10, std::floor(std::log10(rough)));
  double step = magnitude;
  for (double factor : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = factor * magnitude;
    if (max / step <= 8) break;
  }
  std::vector<double> ticks;
  for (int i = 0; i * step <= max * (1 + 1e-9); ++i) ticks.push_back(i * step);
  return ticks;
}

std::string LineChartSvg(const LineChart& chart, const std::vector<Series>& series) {
  double x_max = 0, y_max = 0;
  for (const Series& s : series) {
    for (const PlotPoint& p : s.points) {
      x_max = std::max(x_max, p.x);
      y_max = std::max(y_max, p.y);
    }
  }
  // A point far over the target would squash the rest: the axis stops at 3x
  // the target and such points sit on the top edge (their tooltips tell).
  if (chart.reference_y) y_max = std::min(std::max(y_max, *chart.reference_y), 3 * *chart.reference_y);
  x_max = x_max > 0 ? x_max * 1.05 : 1;
  y_max = y_max > 0 ? y_max * 1.05 : 1;
  const std::vector<double> x_ticks = Ticks(x_max), y_ticks = Ticks(y_max);
  const double legend_x = kLeft + kPlotWidth + 24;
  const double height = std::max(kTop + kPlotHeight + 50, kTop + kLegendRow * double(series.size()) + 20);
  std::string svg = Open(legend_x + 260, height, chart.title) + Axes(x_ticks, x_max, y_ticks, y_max);
  svg += Text(kLeft + kPlotWidth / 2, kTop + kPlotHeight + 36, chart.x_label, " text-anchor=\"middle\"");
  svg += Text(16, kTop + kPlotHeight / 2, chart.y_label,
              (" text-anchor=\"middle\" transform=\"rotate(-90 16 " + Num(kTop + kPlotHeight / 2) + ")\"").c_str());
  if (chart.reference_y) {
    const double py = kTop + kPlotHeight * (1 - std::min(*chart.reference_y / y_max, 1.0));
    svg += "<line class=\"reference\" x1=\"" + Num(kLeft) + "\" y1=\"" + Num(py) + "\" x2=\"" +
           Num(kLeft + kPlotWidth) + "\" y2=\"" + Num(py) + "\" stroke=\"#c00\" stroke-dasharray=\"8 4\"/>\n";
    svg += Text(kLeft + kPlotWidth - 4, py - 5, chart.reference_label, " text-anchor=\"end\" fill=\"#c00\"");
  }
  // Highlighted series last, so they are drawn on top.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < series.size(); ++i) {
      if (series[i].highlight == (pass == 1)) svg += DrawSeries(series[i], i, x_max, y_max, legend_x);
    }
  }
  return svg + "</svg>\n";
}

std::string BarChartSvg(const std::string& title, const std::string& value_label,
                        const std::vector<Bar>& bars) {
  constexpr double kRow = 20, kLabelWidth = 150;
  double max = 0;
  for (const Bar& bar : bars) max = std::max(max, bar.value);
  max = max > 0 ? max * 1.05 : 1;
  const std::vector<double> ticks = Ticks(max);
  const double left = kLeft + kLabelWidth, width = kPlotWidth - kLabelWidth + 200;
  const double height = kTop + kRow * double(bars.size()) + 50;
  std::string svg = Open(left + width + 40, height, title);
  for (double t : ticks) {
    const double px = left + width * t / max;
    svg += "<line x1=\"" + Num(px) + "\" y1=\"" + Num(kTop) + "\" x2=\"" + Num(px) + "\" y2=\"" +
           Num(height - 40) + "\" stroke=\"#eee\"/>\n" + Text(px, height - 24, Label(t), " text-anchor=\"middle\"");
  }
  svg += Text(left + width / 2, height - 6, value_label, " text-anchor=\"middle\"");
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& bar = bars[i];
    const double y = kTop + kRow * double(i);
    const char* fill = bar.muted ? "#bbb" : bar.highlight ? "#D55E00" : "#0072B2";
    svg += Text(left - 8, y + 14, bar.label, bar.highlight ? " text-anchor=\"end\" font-weight=\"bold\"" : " text-anchor=\"end\"");
    svg += "<rect class=\"bar\" x=\"" + Num(left) + "\" y=\"" + Num(y + 3) + "\" width=\"" +
           Num(std::max(width * bar.value / max, 1.0)) + "\" height=\"" + Num(kRow - 6) + "\" fill=\"" +
           fill + "\"><title>" + XmlEscape(bar.tip) + "</title></rect>\n";
  }
  return svg + "</svg>\n";
}

}  // namespace inferd::tune
