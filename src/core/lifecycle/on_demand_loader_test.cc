// OnDemandLoader in simulated time (FakeClock) over a fake host: one load per
// model however many wait; LRU eviction within the budget, never of a busy or
// pinned model; waits for busy models to free up, bounded by the timeout;
// attributed bytes from the measured growth; ensembles' composing models.
#include "core/lifecycle/on_demand_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "core/timing/fake_clock.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using std::chrono::milliseconds;

// Models of a known size that grow a fake RSS when they load; a load may be
// held at a gate until the test opens it.
class FakeHost final : public OnDemandHost {
 public:
  explicit FakeHost(const Clock& clock) : clock_(clock) {}

  bool Serves(const std::string& key) const override {
    MutexLock lock(&mu_);
    return loaded_.contains(key);
  }
  std::vector<std::string> ComposingOf(const std::string& key) const override {
    MutexLock lock(&mu_);
    auto found = steps_.find(key);
    return found == steps_.end() ? std::vector<std::string>{} : found->second;
  }
  Status LoadOnDemand(const std::string& key) override {
    MutexLock lock(&mu_);
    ++loads_[key];
    ++loading_;
    while (gated_) gate_.Wait(&mu_);
    --loading_;
    if (broken_.contains(key)) return Status::InvalidArg("model '" + key + "' is broken");
    loaded_[key] = Usage{clock_.NowNs(), false, false};
    rss_ += Size(key);
    return Status::Ok();
  }
  void Evict(const std::string& key, const std::string& reason) override {
    MutexLock lock(&mu_);
    EXPECT_FALSE(loaded_.at(key).busy) << key << " evicted with a request in flight";
    EXPECT_FALSE(loaded_.at(key).pinned) << key << " evicted though pinned";
    loaded_.erase(key);
    rss_ -= Size(key);
    evicted_.push_back(key);
    last_reason_ = reason;
  }
  std::vector<ResidentModel> Resident() const override {
    MutexLock lock(&mu_);
    std::vector<ResidentModel> resident;
    for (const auto& [key, use] : loaded_) {
      bool kept = false;
      for (const auto& [ensemble, steps] : steps_) {
        kept |= loaded_.contains(ensemble) &&
                std::find(steps.begin(), steps.end(), key) != steps.end();
      }
      resident.push_back({key, 0, use.last_used_ns, use.busy, use.pinned, kept});
    }
    return resident;
  }
  // Its size, unless the test made it look smaller than it loads.
  uint64_t EstimateBytes(const std::string& key) const override {
    MutexLock lock(&mu_);
    return underestimated_.contains(key) ? 1 : Size(key);
  }
  std::shared_ptr<const void> HoldBackends(const std::string&) const override { return nullptr; }
  uint64_t MeasureBytes() const override {
    MutexLock lock(&mu_);
    return rss_;
  }

  void SetSize(const std::string& key, uint64_t bytes) {
    MutexLock lock(&mu_);
    sizes_[key] = bytes;
  }
  void SetSteps(const std::string& key, std::vector<std::string> steps) {
    MutexLock lock(&mu_);
    steps_[key] = std::move(steps);
  }
  void Underestimate(const std::string& key) {
    MutexLock lock(&mu_);
    underestimated_.insert(key);
  }
  void Break(const std::string& key) {
    MutexLock lock(&mu_);
    broken_.insert(key);
  }
  void Use(const std::string& key, bool busy) {
    MutexLock lock(&mu_);
    loaded_.at(key).busy = busy;
    loaded_.at(key).last_used_ns = clock_.NowNs();
  }
  void Pin(const std::string& key) {
    MutexLock lock(&mu_);
    loaded_.at(key).pinned = true;
  }
  void CloseGate() {
    MutexLock lock(&mu_);
    gated_ = true;
  }
  void OpenGate() {
    MutexLock lock(&mu_);
    gated_ = false;
    gate_.SignalAll();
  }
  bool AwaitLoading() const {
    for (int i = 0; i < 10'000; ++i) {
      {
        MutexLock lock(&mu_);
        if (loading_ > 0) return true;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return false;
  }
  int Loads(const std::string& key) const {
    MutexLock lock(&mu_);
    auto found = loads_.find(key);
    return found == loads_.end() ? 0 : found->second;
  }
  std::vector<std::string> Evicted() const {
    MutexLock lock(&mu_);
    return evicted_;
  }
  std::string LastReason() const {
    MutexLock lock(&mu_);
    return last_reason_;
  }

 private:
  struct Usage {
    uint64_t last_used_ns = 0;
    bool busy = false;
    bool pinned = false;
  };
  uint64_t Size(const std::string& key) const REQUIRES(mu_) {
    auto found = sizes_.find(key);
    return found == sizes_.end() ? 10 : found->second;
  }

  const Clock& clock_;
  mutable Mutex mu_;
  CondVar gate_;
  bool gated_ GUARDED_BY(mu_) = false;
  int loading_ GUARDED_BY(mu_) = 0;
  uint64_t rss_ GUARDED_BY(mu_) = 1000;  // the process without models
  std::map<std::string, Usage> loaded_ GUARDED_BY(mu_);
  std::map<std::string, uint64_t> sizes_ GUARDED_BY(mu_);
  std::map<std::string, int> loads_ GUARDED_BY(mu_);
  std::map<std::string, std::vector<std::string>> steps_ GUARDED_BY(mu_);
  std::set<std::string> broken_ GUARDED_BY(mu_);
  std::set<std::string> underestimated_ GUARDED_BY(mu_);
  std::vector<std::string> evicted_ GUARDED_BY(mu_);
  std::string last_reason_ GUARDED_BY(mu_);
};

// What a waiting request was answered, once it is.
struct Outcome {
  Mutex mu;
  CondVar answered;
  std::optional<Status> status GUARDED_BY(mu);

  OnDemandLoader::Done Callback() {
    return [this](Status s) {
      MutexLock lock(&mu);
      EXPECT_FALSE(status.has_value()) << "answered twice";
      status = std::move(s);
      answered.SignalAll();
    };
  }
  Status Get() {
    MutexLock lock(&mu);
    while (!status.has_value()) {
      if (!answered.WaitFor(&mu, std::chrono::seconds(10)) && !status.has_value()) {
        return Status::Internal("never answered");
      }
    }
    return *status;
  }
  bool Answered() {
    MutexLock lock(&mu);
    return status.has_value();
  }
};

class OnDemandLoaderTest : public ::testing::Test {
 protected:
  void Start(uint64_t budget, milliseconds timeout = milliseconds(1000)) {
    loader_.emplace(&host_, clock_,
                    OnDemandOptions{budget, static_cast<uint64_t>(timeout.count()) * 1'000'000, 1});
  }
  Status Load(const std::string& key) {
    Outcome outcome;
    loader_->Await(key, outcome.Callback());
    return outcome.Get();
  }

  FakeClock clock_;
  FakeHost host_{clock_};
  std::optional<OnDemandLoader> loader_;
};

TEST_F(OnDemandLoaderTest, RequestsArrivingDuringALoadShareIt) {
  Start(100);
  host_.CloseGate();
  Outcome first, second, third;
  loader_->Await("m", first.Callback());
  ASSERT_TRUE(host_.AwaitLoading());
  loader_->Await("m", second.Callback());
  loader_->Await("m", third.Callback());
  EXPECT_FALSE(first.Answered());
  host_.OpenGate();
  EXPECT_TRUE(first.Get().ok());
  EXPECT_TRUE(second.Get().ok());
  EXPECT_TRUE(third.Get().ok());
  EXPECT_EQ(host_.Loads("m"), 1);
  // Loaded: a later wait is answered without another load.
  EXPECT_TRUE(Load("m").ok());
  EXPECT_EQ(host_.Loads("m"), 1);
}

TEST_F(OnDemandLoaderTest, EvictsTheLeastRecentlyUsedModelToFit) {
  Start(30);
  for (const char* key : {"a", "b", "c"}) {
    ASSERT_TRUE(Load(key).ok());
    clock_.Advance(milliseconds(1));
  }
  host_.Use("a", false);  // a is now the most recent; b the least
  ASSERT_TRUE(Load("d").ok());
  EXPECT_THAT(host_.Evicted(), ElementsAre("b"));
  EXPECT_THAT(host_.LastReason(), HasSubstr("to load model 'd' within the memory budget"));
  const MemoryBudgetSnapshot snapshot = loader_->Snapshot();
  EXPECT_EQ(snapshot.used_bytes, 30u);
  EXPECT_EQ(snapshot.waits, 4u);
}

TEST_F(OnDemandLoaderTest, WaitsForABusyModelInsteadOfEvictingIt) {
  Start(20);
  ASSERT_TRUE(Load("a").ok());
  ASSERT_TRUE(Load("b").ok());
  host_.Use("a", true);
  host_.Use("b", true);
  Outcome c;
  loader_->Await("c", c.Callback());
  ASSERT_TRUE(clock_.AwaitWaiters(1));  // backing off: both models hold the budget
  EXPECT_FALSE(c.Answered());
  host_.Use("b", false);  // b's request ends
  clock_.Advance(milliseconds(1));
  EXPECT_TRUE(c.Get().ok());
  EXPECT_THAT(host_.Evicted(), ElementsAre("b"));
}

TEST_F(OnDemandLoaderTest, AWaitThatOutlivesItsTimeoutIsAnsweredUnavailable) {
  Start(10, milliseconds(100));
  ASSERT_TRUE(Load("a").ok());
  host_.Use("a", true);
  Outcome b;
  const uint64_t deadline = loader_->Await("b", b.Callback());
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  clock_.Advance(milliseconds(100));
  loader_->SweepExpired(deadline);  // what the server's sweeper does
  const Status status = b.Get();
  EXPECT_EQ(status.code(), Status::Code::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("did not load within 100 ms"));
  // The loader stops waiting for room once nobody waits, and evicts nothing.
  clock_.Advance(milliseconds(100));
  EXPECT_TRUE(host_.Evicted().empty());
  EXPECT_EQ(host_.Loads("b"), 0);
  EXPECT_EQ(loader_->Snapshot().wait_failures, 1u);
}

TEST_F(OnDemandLoaderTest, APinnedModelIsNeverEvictedAndALoadThatCannotFitFailsAtOnce) {
  Start(15);
  ASSERT_TRUE(Load("pinned").ok());
  host_.Pin("pinned");
  const Status status = Load("other");
  EXPECT_EQ(status.code(), Status::Code::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("pinned models hold 10"));
  EXPECT_TRUE(host_.Evicted().empty());
}

TEST_F(OnDemandLoaderTest, AttributesTheMeasuredGrowthAndUsesItAsTheNextEstimate) {
  Start(100);
  host_.SetSize("big", 60);
  ASSERT_TRUE(Load("big").ok());
  clock_.Advance(milliseconds(1));
  ASSERT_TRUE(Load("small").ok());
  clock_.Advance(milliseconds(1));
  MemoryBudgetSnapshot snapshot = loader_->Snapshot();
  ASSERT_EQ(snapshot.models.size(), 2u);
  EXPECT_EQ(snapshot.models[0].model, "big");
  EXPECT_EQ(snapshot.models[0].bytes, 60u);
  EXPECT_EQ(snapshot.models[0].cold_loads, 1u);
  // big (60) + small (10) + medium (40) > 100: big is the least recently used.
  host_.SetSize("medium", 40);
  host_.Underestimate("medium");
  ASSERT_TRUE(Load("medium").ok());
  clock_.Advance(milliseconds(1));
  // The estimate was 1 byte, the measurement 40: big goes after the load.
  EXPECT_THAT(host_.Evicted(), ElementsAre("big"));
  // big's next load is known to need 60: the least recently used (small)
  // makes room first, and that is enough.
  ASSERT_TRUE(Load("big").ok());
  EXPECT_THAT(host_.Evicted(), ElementsAre("big", "small"));
  EXPECT_EQ(loader_->Snapshot().used_bytes, 100u);
}

TEST_F(OnDemandLoaderTest, AnEnsembleLoadsItsComposingModelsFirstAndKeepsThem) {
  Start(30);
  host_.SetSteps("ens", {"s1", "s2"});
  host_.SetSize("ens", 1);
  ASSERT_TRUE(Load("ens").ok());
  EXPECT_EQ(host_.Loads("s1"), 1);
  EXPECT_EQ(host_.Loads("s2"), 1);
  // 21 used; x needs 10: only the ensemble itself may go, and it is not
  // enough, so the wait ends without an eviction.
  host_.Use("ens", true);
  Outcome x;
  loader_->Await("x", x.Callback());
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  EXPECT_TRUE(host_.Evicted().empty());
  host_.Use("ens", false);  // idle: the ensemble goes first, then its steps
  clock_.Advance(milliseconds(1));
  EXPECT_TRUE(x.Get().ok());
  EXPECT_THAT(host_.Evicted(), ElementsAre("ens"));
}

TEST_F(OnDemandLoaderTest, AFailedLoadAnswersEveryWaiterWithItsReason) {
  Start(100);
  host_.Break("bad");
  const Status status = Load("bad");
  EXPECT_THAT(status.message(), HasSubstr("model 'bad' is broken"));
}

TEST_F(OnDemandLoaderTest, StopAnswersTheRequestsStillWaiting) {
  Start(10);
  ASSERT_TRUE(Load("a").ok());
  host_.Use("a", true);
  Outcome b;
  loader_->Await("b", b.Callback());
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  loader_->Stop();
  EXPECT_THAT(b.Get().message(), HasSubstr("the server is stopping"));
}

TEST_F(OnDemandLoaderTest, LoadNowIsSerializedWithOnDemandLoadsAndMeasured) {
  Start(100);
  host_.SetSize("api", 25);
  ASSERT_TRUE(loader_->LoadNow("api", [&] { return host_.LoadOnDemand("api"); }).ok());
  MemoryBudgetSnapshot snapshot = loader_->Snapshot();
  ASSERT_EQ(snapshot.models.size(), 1u);
  EXPECT_EQ(snapshot.models[0].bytes, 25u);
  EXPECT_EQ(snapshot.models[0].cold_loads, 0u);  // not on demand
}

TEST_F(OnDemandLoaderTest, LoadNowWaitsForALoadUnderWayAtMostTheTimeout) {
  // A model whose load asks for another (pb_utils.load_model in initialize)
  // must not wait for its own load for good.
  Start(100, milliseconds(100));
  host_.CloseGate();
  Outcome a;
  loader_->Await("a", a.Callback());
  ASSERT_TRUE(host_.AwaitLoading());
  Status nested;
  std::thread caller([&] {
    nested = loader_->LoadNow("b", [&] { return host_.LoadOnDemand("b"); });
  });
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  clock_.Advance(milliseconds(100));
  caller.join();
  EXPECT_EQ(nested.code(), Status::Code::kUnavailable);
  EXPECT_THAT(nested.message(), HasSubstr("another load held the loader"));
  host_.OpenGate();
  EXPECT_TRUE(a.Get().ok());
  EXPECT_EQ(host_.Loads("b"), 0);
  // Free again: LoadNow loads at once.
  EXPECT_TRUE(loader_->LoadNow("b", [&] { return host_.LoadOnDemand("b"); }).ok());
}

}  // namespace
}  // namespace inferd
