// The outputs of a made-up run: the HTML report (well-formed, self-contained,
// both plots with a mark per step, the recommendation and its snippet), the
// stdout summary, the JSON file, and the SVG helpers.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "tune/html_report.h"
#include "tune/results_json.h"
#include "tune/summary.h"
#include "tune/svg_plot.h"

namespace inferd::tune {
namespace {

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

PointResult Point(Setting setting, std::vector<StepMeasurement> steps, double target_ms) {
  PointResult point;
  point.setting = setting;
  point.steps = std::move(steps);
  point.score = ScoreSteps(point.steps, target_ms, &point.best_step);
  point.load_secs = 0.4;
  return point;
}

TuneResult MadeUpRun() {
  TuneResult r;
  r.model = "m<&>";
  r.server = "http://localhost:8000";
  r.mode = "coordinate-descent search";
  r.latency_target_ms = 20;
  r.grid_size = 12;
  r.original = {64, 4000, 1};
  r.original_config_json = R"({"max_batch_size":64,"dynamic_batching":{},"instance_group":[{"count":1,"kind":"KIND_CPU"}]})";
  r.points.push_back(Point({64, 4000, 1}, {{1, 200, 4, 5, 100, 0, ""}, {8, 900, 9, 12, 400, 0, ""},
                                          {16, 1000, 20, 31, 500, 0, ""}}, 20));
  r.points.push_back(Point({32, 4000, 2}, {{1, 250, 3, 4, 100, 0, ""}, {8, 1200, 8, 11, 400, 0, ""},
                                          {16, 1300, 15, 25, 500, 0, ""}}, 20));
  r.points.push_back(Point({8, 0, 1}, {{1, 150, 30, 45, 100, 0, ""}}, 20));
  PointResult failed;
  failed.setting = {32, 4000, 4};
  failed.error = "POST /v2/repository/models/m/load: HTTP 400: too many instances";
  failed.best_step = 0;
  r.points.push_back(failed);
  r.best = 1;
  r.has_recommendation = true;
  r.restored = true;
  r.restore_note = "restored the original configuration (max_batch_size 64, queue delay 4000 us, 1 instance)";
  return r;
}

TEST(ReportTest, TheHtmlIsOneSelfContainedPageWithBothPlots) {
  const std::string html = HtmlReport(MadeUpRun());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(Count(html, "<svg xmlns=\"http://www.w3.org/2000/svg\""), 2u);
  EXPECT_EQ(Count(html, "<polyline"), 3u);  // one line per measured setting
  EXPECT_EQ(Count(html, "<circle"), 7u);    // one mark per step
  EXPECT_EQ(Count(html, "class=\"bar\""), 4u);
  EXPECT_EQ(Count(html, "class=\"reference\""), 1u);  // the target line
  EXPECT_EQ(html.find("<script"), std::string::npos);
  for (const char* fetches : {" src=", "href=", "<link", "@import", "url("}) {
    EXPECT_EQ(html.find(fetches), std::string::npos) << fetches;
  }
  EXPECT_NE(html.find("inferd tune: m&lt;&amp;&gt;"), std::string::npos);  // escaped
  EXPECT_NE(html.find("Recommended: max_batch_size 32, queue delay 4000 us, 2 instances"), std::string::npos);
  EXPECT_NE(html.find("max_batch_size: 32\ndynamic_batching { max_queue_delay_microseconds: 4000 }\n"
                      "instance_group [ { count: 2, kind: KIND_CPU } ]"), std::string::npos);
  EXPECT_NE(html.find("too many instances"), std::string::npos);
  // Ranked: the recommendation first, the failed load last.
  EXPECT_LT(html.find("<tr class=\"best\"><td>1</td><td>32</td>"), html.find("<td>2</td><td>64</td>"));
}

TEST(ReportTest, WithoutARecommendationTheReportSaysSo) {
  TuneResult r = MadeUpRun();
  r.has_recommendation = false;
  r.restored = false;
  r.restore_note = "the original configuration was NOT restored: gone";
  const std::string html = HtmlReport(r);
  EXPECT_NE(html.find("No setting kept p99 within 20.00 ms"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"warn\">The original configuration was NOT restored: gone.</p>"),
            std::string::npos);
  EXPECT_EQ(html.find("id=\"recommendation\""), std::string::npos);
}

TEST(ReportTest, TheSummaryRanksPointsAndPrintsTheSnippet) {
  const std::string text = SummaryText(MadeUpRun());
  EXPECT_NE(text.find("4 of 12 settings measured (coordinate-descent search)"), std::string::npos) << text;
  EXPECT_NE(text.find("recommended: max_batch_size 32, queue delay 4000 us, 2 instances: "
                      "1200.0 infer/s at concurrency 8 (p99 11.00 ms)"), std::string::npos) << text;
  EXPECT_NE(text.find("  instance_group [ { count: 2, kind: KIND_CPU } ]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("     45.00           1   over the target\n"), std::string::npos) << text;
  EXPECT_NE(text.find("not measured: POST /v2/repository/models/m/load: HTTP 400"), std::string::npos);
  EXPECT_LT(text.find("* "), text.find("   64 "));
  const std::vector<size_t> ranked = RankPoints(MadeUpRun());
  EXPECT_EQ(ranked, (std::vector<size_t>{1, 0, 2, 3}));
}

TEST(ReportTest, TheJsonCarriesEveryStep) {
  const std::string json = ResultsJson(MadeUpRun());
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError()) << json;
  EXPECT_EQ(doc["recommended"]["instances"].GetInt(), 2);
  EXPECT_EQ(doc["recommended_index"].GetInt(), 1);
  ASSERT_EQ(doc["points"].Size(), 4u);
  EXPECT_EQ(doc["points"][0]["steps"].Size(), 3u);
  EXPECT_EQ(doc["points"][1]["best_concurrency"].GetInt(), 8);
  EXPECT_DOUBLE_EQ(doc["points"][1]["throughput"].GetDouble(), 1200);
  EXPECT_TRUE(doc["points"][3]["p99_ms"].IsNull());
  EXPECT_FALSE(doc["points"][2]["feasible"].GetBool());
}

TEST(SvgPlotTest, TicksAreRoundAndCoverTheRange) {
  EXPECT_EQ(Ticks(10), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(Ticks(1234), (std::vector<double>{0, 200, 400, 600, 800, 1000, 1200}));
  EXPECT_EQ(Ticks(0.3).size(), 7u);
  EXPECT_EQ(XmlEscape("a<b & 'c' \"d\">"), "a&lt;b &amp; &#39;c&#39; &quot;d&quot;&gt;");
}

TEST(SvgPlotTest, PointsFarOverTheReferenceSitOnTheTopEdge) {
  const std::string svg = LineChartSvg({"t", "x", "y", 10.0, "target"},
                                       {{"s", {{1, 5, "", "low"}, {2, 1000, "", "far over"}}, false}});
  // The plot's top edge is y=40: the far point is drawn there, its tooltip keeps the value.
  EXPECT_NE(svg.find("cy=\"40.0\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("<title>s: far over</title>"), std::string::npos);
}

}  // namespace
}  // namespace inferd::tune
