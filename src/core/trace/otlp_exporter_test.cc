#include "core/trace/otlp_exporter.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <thread>

#include "core/timing/fake_clock.h"
#include "core/trace/otlp_json.h"

namespace inferd {
namespace {

using std::chrono::milliseconds;

// Records each batch's span count; Send waits while `held`, and fails while
// `failing`.
class FakeTransport final : public SpanTransport {
 public:
  struct State {
    Mutex mu;
    CondVar changed;
    std::vector<size_t> batches GUARDED_BY(mu);
    bool held GUARDED_BY(mu) = false;
    bool failing GUARDED_BY(mu) = false;
    int sending GUARDED_BY(mu) = 0;
  };
  explicit FakeTransport(State* state) : state_(state) {}
  Status Send(std::string_view body) override {
    rapidjson::Document doc;
    doc.Parse(body.data(), body.size());
    EXPECT_FALSE(doc.HasParseError()) << body;
    const size_t spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"].Size();
    MutexLock lock(&state_->mu);
    ++state_->sending;
    state_->changed.SignalAll();
    while (state_->held) state_->changed.Wait(&state_->mu);
    --state_->sending;
    state_->batches.push_back(spans);
    state_->changed.SignalAll();
    return state_->failing ? Status::Unavailable("collector down") : Status::Ok();
  }

 private:
  State* state_;
};

// Records of one span each (a request and its end).
std::vector<SpanRecord> Spans(size_t count) {
  std::vector<SpanRecord> records(count);
  for (SpanRecord& record : records) {
    record.trace_id = NewTraceId();
    record.span_id = NewSpanId();
    record.model_name = "s";
    record.ns[static_cast<size_t>(TracePoint::kRequestStart)] = 1;
    record.ns[static_cast<size_t>(TracePoint::kRequestEnd)] = 2;
  }
  return records;
}

void Export(OtlpExporter& exporter, std::vector<SpanRecord> records) {
  for (SpanRecord& record : records) exporter.Export(std::move(record));
}

class OtlpExporterTest : public ::testing::Test {
 protected:
  std::unique_ptr<OtlpExporter> Make(BatchSpanSettings settings) {
    return std::make_unique<OtlpExporter>(settings,
                                          std::make_unique<OtlpJsonEncoder>(
                                              ResourceAttributes{{"service.name", "t"}}),
                                          std::make_unique<FakeTransport>(&state_), clock_);
  }
  std::vector<size_t> Batches() {
    MutexLock lock(&state_.mu);
    return state_.batches;
  }
  // Waits (real time, bounded) until `count` batches were sent.
  void AwaitBatches(size_t count) {
    MutexLock lock(&state_.mu);
    while (state_.batches.size() < count) {
      ASSERT_TRUE(state_.changed.WaitFor(&state_.mu, std::chrono::seconds(30)))
          << "only " << state_.batches.size() << " batches";
    }
  }
  FakeClock clock_;
  FakeTransport::State state_;
};

TEST_F(OtlpExporterTest, SendsAFullBatchAtOnceAndTheRestAfterTheDelay) {
  auto exporter = Make({/*max_queue_size=*/100, /*schedule_delay_ms=*/5000,
                        /*max_export_batch_size=*/4});
  Export(*exporter, Spans(6));
  AwaitBatches(1);
  EXPECT_EQ(Batches(), std::vector<size_t>({4}));
  // The two left wait for the delay, in simulated time.
  clock_.Advance(milliseconds(4999));
  clock_.Advance(milliseconds(1));
  AwaitBatches(2);
  EXPECT_EQ(Batches(), std::vector<size_t>({4, 2}));
  exporter->Flush();  // the counts go up after Send returns
  EXPECT_EQ(exporter->exported(), 6u);
  EXPECT_EQ(exporter->dropped(), 0u);
}

TEST_F(OtlpExporterTest, ALoneSpanIsSentAfterTheDelay) {
  auto exporter = Make({100, /*schedule_delay_ms=*/50, 10});
  Export(*exporter, Spans(1));
  clock_.Advance(milliseconds(50));
  AwaitBatches(1);
  EXPECT_EQ(Batches(), std::vector<size_t>({1}));
}

TEST_F(OtlpExporterTest, FlushSendsWhatWaits) {
  auto exporter = Make({100, 5000, 50});
  Export(*exporter, Spans(3));
  exporter->Flush();
  EXPECT_EQ(Batches(), std::vector<size_t>({3}));
}

TEST_F(OtlpExporterTest, AFullQueueDropsAndCountsWithoutWaiting) {
  auto exporter = Make({/*max_queue_size=*/4, 5000, /*max_export_batch_size=*/2});
  {
    MutexLock lock(&state_.mu);
    state_.held = true;  // the collector hangs
  }
  Export(*exporter, Spans(2));  // a full batch: taken by the thread, which hangs
  {
    MutexLock lock(&state_.mu);
    while (state_.sending == 0) state_.changed.Wait(&state_.mu);
  }
  Export(*exporter, Spans(7));  // 4 fit in the queue, 3 are dropped, at once
  EXPECT_EQ(exporter->dropped(), 3u);
  {
    MutexLock lock(&state_.mu);
    state_.held = false;
    state_.changed.SignalAll();
  }
  exporter->Flush();
  EXPECT_EQ(exporter->exported(), 6u);
}

TEST_F(OtlpExporterTest, BatchesTheCollectorRefusesAreDroppedAndCounted) {
  auto exporter = Make({100, 5000, 10});
  {
    MutexLock lock(&state_.mu);
    state_.failing = true;
  }
  Export(*exporter, Spans(5));
  exporter->Flush();
  EXPECT_EQ(exporter->dropped(), 5u);
  EXPECT_EQ(exporter->exported(), 0u);
}

TEST_F(OtlpExporterTest, ACollectorThatFailedIsLeftAloneForAWhileAndDropsAreCounted) {
  auto exporter = Make({100, 5000, 10});
  {
    MutexLock lock(&state_.mu);
    state_.failing = true;
  }
  Export(*exporter, Spans(5));
  exporter->Flush();
  ASSERT_EQ(Batches().size(), 1u);
  // Down: what comes next is dropped without being encoded or sent.
  Export(*exporter, Spans(3));
  exporter->Flush();
  EXPECT_EQ(Batches().size(), 1u);
  EXPECT_EQ(exporter->dropped(), 8u);
  {
    MutexLock lock(&state_.mu);
    state_.failing = false;
  }
  clock_.Advance(milliseconds(OtlpExporter::kRetryAfterMs));
  Export(*exporter, Spans(2));
  exporter->Flush();
  EXPECT_EQ(Batches().size(), 2u);
  EXPECT_EQ(exporter->exported(), 2u);
  EXPECT_EQ(exporter->dropped(), 8u);
}

TEST_F(OtlpExporterTest, RecordsComeBackClearedFromThePoolOnceSent) {
  auto exporter = Make({100, 5000, 10});
  SpanRecord* record = exporter->NewRecord();
  *record = std::move(Spans(1)[0]);
  record->request_id = "r";
  exporter->Submit(record);
  exporter->Flush();
  EXPECT_EQ(exporter->exported(), 1u);
  SpanRecord* again = exporter->NewRecord();
  EXPECT_EQ(again, record);  // reused, not allocated again
  EXPECT_TRUE(again->model_name.empty());
  EXPECT_TRUE(again->request_id.empty());
  EXPECT_EQ(again->At(TracePoint::kRequestStart), 0u);
  exporter->Submit(again);  // no span: back to the pool, nothing sent
  exporter->Flush();
  EXPECT_EQ(exporter->exported(), 1u);
  EXPECT_EQ(Batches().size(), 1u);
}

// Threads submitting at once, the queue filling and draining: every span is
// either sent or counted as dropped, and the thread is never left asleep
// with spans queued (Flush returns).
TEST_F(OtlpExporterTest, ConcurrentSubmitsAreAllSentOrCounted) {
  auto exporter = Make({/*max_queue_size=*/16, 5000, /*max_export_batch_size=*/4});
  constexpr size_t kThreads = 4;
  constexpr size_t kEach = 500;
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (SpanRecord& record : Spans(kEach)) {
        SpanRecord* queued = exporter->NewRecord();
        *queued = std::move(record);
        exporter->Submit(queued);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  exporter->Flush();
  EXPECT_EQ(exporter->exported() + exporter->dropped(), kThreads * kEach);
  EXPECT_GT(exporter->exported(), 0u);
}

TEST(OtlpHttpTest, ParsesTritonsAndFullUrls) {
  auto full = ParseOtlpUrl("http://collector:4318/v1/traces");
  ASSERT_TRUE(full.ok()) << full.status().message();
  EXPECT_EQ(full->host, "collector");
  EXPECT_EQ(full->port, 4318);
  EXPECT_EQ(full->path, "/v1/traces");
  auto bare = ParseOtlpUrl("localhost:9999");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->port, 9999);
  EXPECT_EQ(bare->path, "/v1/traces");
  auto v6 = ParseOtlpUrl("http://[::1]:4318/x");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->path, "/x");
  for (const char* bad : {"https://c:4318", "http://:4318", "c:0", "c:99999", "c:x/"}) {
    EXPECT_EQ(ParseOtlpUrl(bad).status().code(), Status::Code::kInvalidArg) << bad;
  }
}

TEST(OtlpHttpTest, ACollectorThatIsDownIsUnavailable) {
  // Port 1 on loopback: nothing listens there, the connection is refused.
  OtlpHttpTransport transport(OtlpEndpoint{"127.0.0.1", 1, "/v1/traces"}, 2000);
  EXPECT_EQ(transport.Send("{}").code(), Status::Code::kUnavailable);
}

}  // namespace
}  // namespace inferd
