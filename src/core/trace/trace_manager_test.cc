#include "core/trace/trace_manager.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "core/test_util/temp_dir.h"

namespace inferd {
namespace {

class TraceManagerTest : public ::testing::Test {
 protected:
  std::unique_ptr<TraceManager> Make(TraceSettings settings) {
    auto manager = TraceManager::Create(std::move(settings));
    EXPECT_TRUE(manager.ok()) << manager.status().message();
    return std::move(manager).value();
  }
  TraceSettings Timestamps(uint32_t rate = 1) const {
    TraceSettings settings;
    settings.level = TraceLevel::kTimestamps;
    settings.rate = rate;
    settings.file = file_.string();
    return settings;
  }
  static TraceSettingsUpdate Update(std::string_view json) {
    auto update = ParseTraceSettingsUpdate(json);
    EXPECT_TRUE(update.ok()) << update.status().message();
    return std::move(update).value();
  }
  // Runs `requests` requests of `model` through sampling; returns which were
  // traced (1-based), finishing each trace at once.
  static std::vector<int> Sample(TraceManager& manager, const std::string& model, int requests) {
    TraceEntry* entry = manager.EntryFor(model);
    std::vector<int> traced;
    for (int i = 1; i <= requests; ++i) {
      if (manager.MaybeTrace(entry, model, 1, "") != nullptr) traced.push_back(i);
    }
    return traced;
  }
  static rapidjson::Document ReadJson(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    rapidjson::Document doc;
    doc.Parse(text.str().c_str());
    EXPECT_FALSE(doc.HasParseError()) << path << ": " << text.str();
    return doc;
  }

  TempDir dir_;
  std::filesystem::path file_ = dir_.path() / "trace.json";
};

TEST_F(TraceManagerTest, OffByDefaultTracesNothing) {
  auto manager = Make(TraceSettings());
  EXPECT_TRUE(Sample(*manager, "m", 2000).empty());
  EXPECT_EQ(manager->Current("").level, TraceLevel::kOff);
  EXPECT_EQ(manager->Current("").rate, 1000u);
  EXPECT_EQ(manager->Current("").count, -1);
}

TEST_F(TraceManagerTest, StartupTracingNeedsAFile) {
  TraceSettings settings = Timestamps();
  settings.file.clear();
  EXPECT_EQ(TraceManager::Create(settings).status().code(), Status::Code::kInvalidArg);
}

TEST_F(TraceManagerTest, RateSamplesEveryNthRequest) {
  auto manager = Make(Timestamps(3));
  EXPECT_EQ(Sample(*manager, "m", 10), (std::vector<int>{3, 6, 9}));
}

TEST_F(TraceManagerTest, CountLimitsTracesAndIsReportedAsWhatIsLeft) {
  TraceSettings settings = Timestamps();
  settings.count = 2;
  auto manager = Make(settings);
  EXPECT_EQ(Sample(*manager, "m", 5), (std::vector<int>{1, 2}));
  EXPECT_EQ(manager->Current("").count, 0);
  ASSERT_TRUE(manager->Update("", Update(R"({"trace_count": "1"})")).ok());
  EXPECT_EQ(Sample(*manager, "m", 5), (std::vector<int>{1}));
}

TEST_F(TraceManagerTest, ModelOverrideFallsBackToGlobalFieldByField) {
  auto manager = Make(Timestamps(4));
  ASSERT_TRUE(manager->Update("a", Update(R"({"trace_rate": "1"})")).ok());
  EXPECT_EQ(manager->Current("a").rate, 1u);
  EXPECT_EQ(manager->Current("a").level, TraceLevel::kTimestamps);
  EXPECT_EQ(manager->Current("b").rate, 4u);
  EXPECT_EQ(Sample(*manager, "a", 3), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(Sample(*manager, "b", 4), (std::vector<int>{4}));

  // A global change reaches what the model does not state itself.
  ASSERT_TRUE(manager->Update("", Update(R"({"trace_level": ["OFF"]})")).ok());
  EXPECT_EQ(manager->Current("a").level, TraceLevel::kOff);
  EXPECT_EQ(manager->Current("a").rate, 1u);
  EXPECT_TRUE(Sample(*manager, "a", 3).empty());

  // Clearing the model's only field removes its override.
  ASSERT_TRUE(manager->Update("a", Update(R"({"trace_rate": null})")).ok());
  EXPECT_EQ(manager->Current("a").rate, 4u);
}

TEST_F(TraceManagerTest, ModelCanTraceWhileGlobalIsOff) {
  TraceSettings settings = Timestamps();
  settings.level = TraceLevel::kOff;
  auto manager = Make(settings);
  ASSERT_TRUE(manager->Update("a", Update(R"({"trace_level": ["TIMESTAMPS"]})")).ok());
  EXPECT_EQ(Sample(*manager, "a", 2), (std::vector<int>{1, 2}));
  EXPECT_TRUE(Sample(*manager, "b", 2).empty());
}

TEST_F(TraceManagerTest, GlobalClearReturnsToStartupValue) {
  auto manager = Make(Timestamps(8));
  ASSERT_TRUE(manager->Update("", Update(R"({"trace_rate": "2"})")).ok());
  EXPECT_EQ(manager->Current("").rate, 2u);
  ASSERT_TRUE(manager->Update("", Update(R"({"trace_rate": null})")).ok());
  EXPECT_EQ(manager->Current("").rate, 8u);
}

TEST_F(TraceManagerTest, UpdateThatCannotTraceChangesNothing) {
  TraceSettings settings;  // no file
  auto manager = Make(settings);
  Status status = manager->Update("", Update(R"({"trace_level": "TIMESTAMPS", "trace_rate": "5"})"));
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find("trace file"), std::string::npos) << status.message();
  EXPECT_EQ(manager->Current("").level, TraceLevel::kOff);
  EXPECT_EQ(manager->Current("").rate, 1000u);

  auto tracing = Make(Timestamps());
  EXPECT_EQ(tracing->Update("m", Update(R"({"trace_rate": "0"})")).code(),
            Status::Code::kInvalidArg);
  EXPECT_EQ(tracing->Current("m").rate, 1u);
}

TEST_F(TraceManagerTest, FlushWritesOneArrayOfTracesInTritonFormat) {
  auto manager = Make(Timestamps());
  TraceEntry* entry = manager->EntryFor("m");
  for (int i = 0; i < 2; ++i) {
    auto trace = manager->MaybeTrace(entry, "m", 3, i == 0 ? "req-1" : "");
    ASSERT_NE(trace, nullptr);
    const uint64_t start = trace->At(TracePoint::kRequestStart);
    trace->Record(TracePoint::kQueueStart, start + 1);
    trace->Record(TracePoint::kComputeStart, start + 2);
    trace->Record(TracePoint::kComputeInputEnd, start + 2);
    trace->RecordComputeEnd(start + 5);
    trace->Record(TracePoint::kRequestEnd, start + 6);
  }
  EXPECT_FALSE(std::filesystem::exists(file_));  // log_frequency 0: at flush
  manager->Flush();
  rapidjson::Document doc = ReadJson(file_);
  ASSERT_TRUE(doc.IsArray());
  ASSERT_EQ(doc.Size(), 2u);
  const auto& first = doc[0];
  EXPECT_EQ(first["id"].GetUint64(), 1u);
  EXPECT_STREQ(first["model_name"].GetString(), "m");
  EXPECT_EQ(first["model_version"].GetInt64(), 3);
  EXPECT_STREQ(first["request_id"].GetString(), "req-1");
  EXPECT_FALSE(doc[1].HasMember("request_id"));
  const char* names[] = {"REQUEST_START",        "QUEUE_START", "COMPUTE_START",
                         "COMPUTE_INPUT_END",    "COMPUTE_OUTPUT_START", "COMPUTE_END",
                         "REQUEST_END"};
  const auto& timestamps = first["timestamps"];
  ASSERT_EQ(timestamps.Size(), 7u);
  uint64_t previous = 0;
  for (rapidjson::SizeType i = 0; i < timestamps.Size(); ++i) {
    EXPECT_STREQ(timestamps[i]["name"].GetString(), names[i]);
    EXPECT_GE(timestamps[i]["ns"].GetUint64(), previous);
    previous = timestamps[i]["ns"].GetUint64();
  }

  // A later flush appends, and the file stays one array.
  ASSERT_NE(manager->MaybeTrace(entry, "m", 3, ""), nullptr);
  manager->Flush();
  EXPECT_EQ(ReadJson(file_).Size(), 3u);
}

TEST_F(TraceManagerTest, LogFrequencyWritesIndexedFiles) {
  TraceSettings settings = Timestamps();
  settings.log_frequency = 2;
  auto manager = Make(settings);
  EXPECT_EQ(Sample(*manager, "m", 5).size(), 5u);
  EXPECT_EQ(ReadJson(file_.string() + ".0").Size(), 2u);
  EXPECT_EQ(ReadJson(file_.string() + ".1").Size(), 2u);
  EXPECT_FALSE(std::filesystem::exists(file_.string() + ".2"));
  manager->Flush();
  EXPECT_EQ(ReadJson(file_.string() + ".2").Size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(file_));
}

TEST_F(TraceManagerTest, ExhaustedCountWritesItsTracesToAnIndexedFile) {
  TraceSettings settings = Timestamps();
  settings.count = 2;
  auto manager = Make(settings);
  TraceEntry* entry = manager->EntryFor("m");
  auto first = manager->MaybeTrace(entry, "m", 1, "");
  auto second = manager->MaybeTrace(entry, "m", 1, "");
  first.reset();
  EXPECT_FALSE(std::filesystem::exists(file_.string() + ".0"));  // one still running
  second.reset();
  EXPECT_EQ(ReadJson(file_.string() + ".0").Size(), 2u);
}

TEST_F(TraceManagerTest, DiscardedTracesAreNotWritten) {
  auto manager = Make(Timestamps());
  TraceEntry* entry = manager->EntryFor("m");
  manager->MaybeTrace(entry, "m", 1, "")->Discard();
  ASSERT_NE(manager->MaybeTrace(entry, "m", 1, ""), nullptr);
  manager->Flush();
  rapidjson::Document doc = ReadJson(file_);
  ASSERT_EQ(doc.Size(), 1u);
  EXPECT_EQ(doc[0]["id"].GetUint64(), 2u);
}

TEST(RequestTraceTest, FirstRecordWinsAndComputeEndKeepsOrder) {
  RequestTrace trace(1, nullptr, "m", 1, "");
  trace.Record(TracePoint::kComputeStart, 10);
  trace.Record(TracePoint::kComputeStart, 20);
  EXPECT_EQ(trace.At(TracePoint::kComputeStart), 10u);
  trace.RecordComputeEnd(30);
  EXPECT_EQ(trace.At(TracePoint::kComputeOutputStart), 30u);
  EXPECT_EQ(trace.At(TracePoint::kComputeEnd), 30u);
  EXPECT_EQ(trace.At(TracePoint::kRequestEnd), 0u);
}

TEST_F(TraceManagerTest, ConcurrentRequestsTakeTheCountExactlyAndUniqueIds) {
  for (const int32_t count : {-1, 150}) {
    TraceSettings settings = Timestamps();
    settings.count = count;
    auto manager = Make(settings);
    TraceEntry* entry = manager->EntryFor("m");
    constexpr int kThreads = 4;
    constexpr int kEach = 100;
    std::vector<std::vector<uint64_t>> ids(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kEach; ++i) {
          if (auto trace = manager->MaybeTrace(entry, "m", 1, "")) ids[t].push_back(trace->id());
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    std::set<uint64_t> unique;
    for (const auto& some : ids) unique.insert(some.begin(), some.end());
    size_t traced = 0;
    for (const auto& some : ids) traced += some.size();
    EXPECT_EQ(unique.size(), traced) << "count " << count;
    EXPECT_EQ(traced, count < 0 ? size_t{kThreads * kEach} : size_t(count)) << "count " << count;
    EXPECT_EQ(manager->Current("").count, count < 0 ? -1 : 0);
    EXPECT_TRUE(Sample(*manager, "m", 10).size() == (count < 0 ? 10u : 0u)) << "count " << count;
  }
}

}  // namespace
}  // namespace inferd
