// ResponseSender: the decoupled way of answering a request, in simulated time.
#include "core/infer/response_sender.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "core/infer/inference_request.h"
#include "core/infer/inference_response.h"
#include "core/infer/response_allocator.h"
#include "core/infer/sender_registry.h"
#include "core/stats/model_statistics.h"
#include "core/test_util/fake_bound_model.h"
#include "core/test_util/request_factory.h"
#include "core/timing/fake_clock.h"

namespace inferd {
namespace {

class ResponseSenderTest : public ::testing::Test {
 protected:
  ResponseSenderTest() : model_(std::make_shared<FakeBoundModel>(clock_, "stream", 0)) {
    model_->set_decoupled(true);
  }

  // Sends a successful response through `sender`.
  static Status SendOne(ResponseSender& sender, uint32_t flags = 0) {
    StatusOr<std::unique_ptr<InferenceResponse>> response = sender.NewResponse();
    if (!response.ok()) return response.status();
    return sender.Send(std::move(*response), flags, Status::Ok());
  }

  ResponseLog& log() { return requests_.log(); }
  const ResponseStat* StatAt(size_t index) { return model_->stats().responses.At(index); }

  FakeClock clock_;
  std::shared_ptr<FakeBoundModel> model_;
  RequestFactory requests_{model_};
};

TEST_F(ResponseSenderTest, ReleaseBeforeFinalWaitsForFinal) {
  InferenceRequest* request = requests_.Make("r");
  std::shared_ptr<ResponseSender> sender = request->OpenSender();
  sender->OpenHandle();
  EXPECT_TRUE(request->ReleaseFromBackend(INFERD_REQUEST_RELEASE_ALL).ok());
  EXPECT_TRUE(log().released().empty()) << "released before FINAL: its inputs would be freed";

  ASSERT_TRUE(SendOne(*sender).ok());
  ASSERT_TRUE(SendOne(*sender).ok());
  EXPECT_TRUE(log().released().empty());
  ASSERT_TRUE(sender->Send(nullptr, INFERD_RESPONSE_COMPLETE_FINAL, Status::Ok()).ok());
  EXPECT_EQ(log().released(), std::vector<std::string>{"r"});
  sender->CloseHandle();

  const std::vector<LoggedResponse> got = log().responses();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_FALSE(got[0].final());
  EXPECT_FALSE(got[1].final());
  EXPECT_TRUE(got[2].final());
  EXPECT_FALSE(got[2].has_response);
  EXPECT_EQ(model_->released(), 1u);
  EXPECT_EQ(model_->stats().success.count.load(), 1u);
}

TEST_F(ResponseSenderTest, ZeroResponsesIsFinalAlone) {
  InferenceRequest* request = requests_.Make("r");
  std::shared_ptr<ResponseSender> sender = request->OpenSender();
  sender->OpenHandle();
  ASSERT_TRUE(sender->Send(nullptr, INFERD_RESPONSE_COMPLETE_FINAL, Status::Ok()).ok());
  sender->CloseHandle();
  EXPECT_TRUE(request->ReleaseFromBackend(INFERD_REQUEST_RELEASE_ALL).ok());
  ASSERT_EQ(log().responses().size(), 1u);
  EXPECT_EQ(log().released().size(), 1u);
  ASSERT_NE(StatAt(0), nullptr);
  EXPECT_EQ(StatAt(0)->empty_response.count.load(), 1u);
  EXPECT_EQ(StatAt(0)->success.count.load(), 0u);
}

TEST_F(ResponseSenderTest, SendAfterFinalIsRefusedAndDeliversNothing) {
  InferenceRequest* request = requests_.Make("r");
  std::shared_ptr<ResponseSender> sender = request->OpenSender();
  sender->OpenHandle();
  StatusOr<std::unique_ptr<InferenceResponse>> kept = sender->NewResponse();
  ASSERT_TRUE(kept.ok());
  ASSERT_TRUE(SendOne(*sender, INFERD_RESPONSE_COMPLETE_FINAL).ok());
  EXPECT_TRUE(request->ReleaseFromBackend(INFERD_REQUEST_RELEASE_ALL).ok());

  const Status late = sender->Send(std::move(*kept), 0, Status::Ok());
  EXPECT_EQ(late.code(), Status::Code::kInternal);
  EXPECT_NE(late.message().find("request 'r' was sent after its final response"), std::string::npos)
      << late.message();
  EXPECT_FALSE(sender->NewResponse().ok());
  EXPECT_FALSE(sender->Send(nullptr, INFERD_RESPONSE_COMPLETE_FINAL, Status::Ok()).ok());
  EXPECT_TRUE(sender->IsCancelled()) << "an ended request tells a backend to stop";
  sender->CloseHandle();
  EXPECT_EQ(log().responses().size(), 1u);
  EXPECT_EQ(log().released().size(), 1u);
}

TEST_F(ResponseSenderTest, DroppingTheLastHandleWithoutFinalEndsTheRequestWithAnError) {
  InferenceRequest* request = requests_.Make("r");
  std::shared_ptr<ResponseSender> sender = request->OpenSender();
  sender->OpenHandle();
  sender->OpenHandle();
  EXPECT_TRUE(request->ReleaseFromBackend(INFERD_REQUEST_RELEASE_ALL).ok());
  ASSERT_TRUE(SendOne(*sender).ok());
  sender->CloseHandle();
  EXPECT_TRUE(log().released().empty()) << "one handle is still open";
  sender->CloseHandle();

  const std::vector<LoggedResponse> got = log().responses();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(got[1].final());
  EXPECT_EQ(got[1].status.code(), Status::Code::kInternal);
  EXPECT_NE(got[1].status.message().find("without sending the final response"),
            std::string::npos);
  EXPECT_NE(got[1].status.message().find("'stream'"), std::string::npos);
  EXPECT_EQ(log().released().size(), 1u);
  EXPECT_EQ(model_->stats().fail.count.load(), 1u);
}

TEST_F(ResponseSenderTest, ReleasingWithoutFinalAfterTheHandlesAreGoneEndsTheRequest) {
  InferenceRequest* request = requests_.Make("r");
  std::shared_ptr<ResponseSender> sender = request->OpenSender();
  sender->OpenHandle();
  sender->CloseHandle();
  EXPECT_TRUE(log().responses().empty()) << "the backend still holds the request";
  EXPECT_TRUE(request->ReleaseFromBackend(INFERD_REQUEST_RELEASE_ALL).ok());
  const std::vector<LoggedResponse> got = log().responses();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status.code(), Status::Code::kInternal);
  EXPECT_EQ(log().released().size(), 1u);
}

TEST_F(ResponseSenderTest, UnloadEndsWhatTheBackendLeftOpen) {
  InferenceRequest* open = requests_.Make("open");
  InferenceRequest* done = requests_.Make("done");
  std::shared_ptr<ResponseSender> open_sender = open->OpenSender();
  std::shared_ptr<ResponseSender> done_sender = done->OpenSender();
  open_sender->OpenHandle();
  done_sender->OpenHandle();
  EXPECT_TRUE(open->ReleaseFromBackend(INFERD_REQUEST_RELEASE_ALL).ok());
  ASSERT_TRUE(SendOne(*done_sender, INFERD_RESPONSE_COMPLETE_FINAL).ok());
  EXPECT_TRUE(done->ReleaseFromBackend(INFERD_REQUEST_RELEASE_ALL).ok());

  std::vector<std::shared_ptr<ResponseSender>> left = model_->senders().TakeAll();
  ASSERT_EQ(left.size(), 1u) << "only the request without FINAL is still open";
  left[0]->ForceEnd(Status::Internal("model 'stream' version 1 was unloaded"));
  EXPECT_EQ(log().released().size(), 2u);
  const std::vector<LoggedResponse> got = log().responses();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].request_id, "open");
  EXPECT_NE(got[1].status.message().find("unloaded"), std::string::npos);

  // The backend's handle still works, and only says the request ended.
  EXPECT_TRUE(open_sender->IsCancelled());
  EXPECT_FALSE(SendOne(*open_sender).ok());
  open_sender->CloseHandle();
  done_sender->CloseHandle();
  EXPECT_EQ(log().responses().size(), 2u);
}

TEST_F(ResponseSenderTest, CancellationAndTimeoutReachTheBackend) {
  InferenceRequest* cancelled = requests_.Make("c");
  InferenceRequest* timed = requests_.Make("t");
  timed->timeout_us = 5000;
  std::shared_ptr<ResponseSender> sender = cancelled->OpenSender();
  EXPECT_FALSE(sender->IsCancelled());
  cancelled->Cancel();
  EXPECT_TRUE(sender->IsCancelled());
  EXPECT_TRUE(cancelled->IsCancelled());

  EXPECT_FALSE(timed->IsCancelled());
  clock_.Advance(std::chrono::microseconds(4999));
  EXPECT_FALSE(timed->IsCancelled());
  clock_.Advance(std::chrono::microseconds(1));
  EXPECT_TRUE(timed->IsCancelled()) << "the deadline passed";

  for (InferenceRequest* request : {cancelled, timed}) {
    request->RespondWithError(Status::Cancelled("stopped"));
    EXPECT_TRUE(request->ReleaseFromBackend(INFERD_REQUEST_RELEASE_ALL).ok());
  }
  ASSERT_NE(StatAt(0), nullptr);
  EXPECT_EQ(StatAt(0)->cancel.count.load(), 2u);
}

TEST_F(ResponseSenderTest, ResponseStatisticsByIndexInSimulatedTime) {
  InferenceRequest* request = requests_.Make("r");
  request->execute_start_ns = clock_.NowNs();
  std::shared_ptr<ResponseSender> sender = request->OpenSender();
  sender->OpenHandle();
  EXPECT_TRUE(request->ReleaseFromBackend(INFERD_REQUEST_RELEASE_ALL).ok());
  clock_.Advance(std::chrono::microseconds(10));  // to the first response
  ASSERT_TRUE(SendOne(*sender).ok());
  clock_.Advance(std::chrono::microseconds(3));
  StatusOr<std::unique_ptr<InferenceResponse>> second = sender->NewResponse();
  ASSERT_TRUE(second.ok());
  clock_.Advance(std::chrono::microseconds(2));  // filling it
  ASSERT_TRUE(sender->Send(std::move(*second), 0, Status::InvalidArg("bad row")).ok());
  ASSERT_TRUE(sender->Send(nullptr, INFERD_RESPONSE_COMPLETE_FINAL, Status::Ok()).ok());
  sender->CloseHandle();

  ASSERT_NE(StatAt(0), nullptr);
  EXPECT_EQ(StatAt(0)->success.count.load(), 1u);
  EXPECT_EQ(StatAt(0)->success.ns.load(), 10000u) << "time to first response";
  ASSERT_NE(StatAt(1), nullptr);
  EXPECT_EQ(StatAt(1)->fail.count.load(), 1u);
  EXPECT_EQ(StatAt(1)->compute_infer.ns.load(), 3000u);
  EXPECT_EQ(StatAt(1)->compute_output.ns.load(), 2000u);
  ASSERT_NE(StatAt(2), nullptr);
  EXPECT_EQ(StatAt(2)->empty_response.count.load(), 1u);
  EXPECT_EQ(StatAt(3), nullptr);
  EXPECT_EQ(model_->stats().fail.count.load(), 1u) << "a response failed, so the request did";
}

TEST_F(ResponseSenderTest, ConcurrentSendersDeliverEverythingOnceAndFinalLast) {
  InferenceRequest* request = requests_.Make("r");
  std::shared_ptr<ResponseSender> sender = request->OpenSender();
  sender->OpenHandle();
  EXPECT_TRUE(request->ReleaseFromBackend(INFERD_REQUEST_RELEASE_ALL).ok());
  constexpr int kThreads = 4;
  constexpr int kEach = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) ASSERT_TRUE(SendOne(*sender).ok());
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_TRUE(sender->Send(nullptr, INFERD_RESPONSE_COMPLETE_FINAL, Status::Ok()).ok());
  sender->CloseHandle();
  const std::vector<LoggedResponse> got = log().responses();
  ASSERT_EQ(got.size(), static_cast<size_t>(kThreads * kEach + 1));
  EXPECT_TRUE(got.back().final());
  EXPECT_EQ(log().released().size(), 1u);
}

// Counts the allocations the client's allocator was asked for.
struct CountingAllocator {
  static INFERD_Error* Alloc(INFERD_ResponseAllocator*, const char*, size_t byte_size,
                             INFERD_MemoryType, int64_t, void* userp, void** buffer,
                             void** buffer_userp, INFERD_MemoryType* type, int64_t* type_id) {
    ++static_cast<CountingAllocator*>(userp)->calls;
    *buffer = std::malloc(byte_size);
    *buffer_userp = nullptr;
    *type = INFERD_MEMORY_CPU;
    *type_id = 0;
    return nullptr;
  }
  static INFERD_Error* Release(INFERD_ResponseAllocator*, void* buffer, void*, size_t,
                               INFERD_MemoryType, int64_t) {
    std::free(buffer);
    return nullptr;
  }
  int calls = 0;
};

TEST_F(ResponseSenderTest, NoAllocationAfterTheRequestEnded) {
  CountingAllocator counter;
  INFERD_ResponseAllocator allocator{&CountingAllocator::Alloc, &CountingAllocator::Release};
  InferenceRequest* request = requests_.Make("r");
  request->route.allocator = &allocator;
  request->route.allocator_userp = &counter;
  request->outputs = std::make_shared<const std::vector<std::string>>(
      std::vector<std::string>{"OUT"});
  std::shared_ptr<ResponseSender> sender = request->OpenSender();
  sender->OpenHandle();
  EXPECT_TRUE(request->ReleaseFromBackend(INFERD_REQUEST_RELEASE_ALL).ok());
  StatusOr<std::unique_ptr<InferenceResponse>> early = sender->NewResponse();
  StatusOr<std::unique_ptr<InferenceResponse>> late = sender->NewResponse();
  ASSERT_TRUE(early.ok() && late.ok());
  const int64_t shape[] = {1};
  INFERD_MemoryType type = INFERD_MEMORY_CPU;
  int64_t type_id = 0;
  StatusOr<OutputTensor*> out = (*early)->AddOutput("OUT", INFERD_TYPE_INT32, shape, 1);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE((*early)->AllocateBuffer(*out, 4, &type, &type_id).ok());
  EXPECT_EQ(counter.calls, 1);
  ASSERT_TRUE(sender->Send(std::move(*early), INFERD_RESPONSE_COMPLETE_FINAL, Status::Ok()).ok());

  // The client may have freed what its allocator writes into.
  StatusOr<OutputTensor*> late_out = (*late)->AddOutput("OUT", INFERD_TYPE_INT32, shape, 1);
  ASSERT_TRUE(late_out.ok());
  const Status refused = (*late)->AllocateBuffer(*late_out, 4, &type, &type_id);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("already ended"), std::string::npos) << refused.message();
  EXPECT_EQ(counter.calls, 1);
  sender->CloseHandle();
}

TEST_F(ResponseSenderTest, AResponseWithoutFinalFlagMustCarryAResponse) {
  InferenceRequest* request = requests_.Make("r");
  std::shared_ptr<ResponseSender> sender = request->OpenSender();
  EXPECT_EQ(sender->Send(nullptr, 0, Status::Ok()).code(), Status::Code::kInvalidArg);
  request->RespondWithError(Status::Internal("end"));
  EXPECT_TRUE(request->ReleaseFromBackend(INFERD_REQUEST_RELEASE_ALL).ok());
}

}  // namespace
}  // namespace inferd
