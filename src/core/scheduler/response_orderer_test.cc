// preserve_ordering: the orderer delivers each request's responses in the
// order the requests were adopted (queued), holding a later request's
// responses until every earlier request has had its final one. Single
// threaded: what is held and what goes out is visible right after each send.
#include "core/scheduler/response_orderer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/infer/inference_request.h"
#include "core/infer/inference_response.h"
#include "core/test_util/fake_bound_model.h"
#include "core/test_util/request_factory.h"
#include "core/timing/fake_clock.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class ResponseOrdererTest : public testing::Test {
 protected:
  // A request `id`, numbered by the orderer in the order of these calls.
  InferenceRequest* Adopted(const std::string& id) {
    InferenceRequest* request = requests_.Make(id);
    orderer_.Adopt(request);
    return request;
  }

  // What a backend does: one successful response, final or not.
  static void Respond(InferenceRequest* request, bool final) {
    ASSERT_TRUE(InferenceResponse::Send(std::make_unique<InferenceResponse>(*request),
                                        final ? INFERD_RESPONSE_COMPLETE_FINAL : 0, Status::Ok())
                    .ok());
  }

  // What reached the client so far: "id" for a response, "id:final" for a final one.
  std::vector<std::string> Delivered() {
    std::vector<std::string> delivered;
    for (const LoggedResponse& response : requests_.log().responses()) {
      delivered.push_back(response.request_id + (response.final() ? ":final" : ""));
    }
    return delivered;
  }

  FakeClock clock_;
  std::shared_ptr<FakeBoundModel> model_ = std::make_shared<FakeBoundModel>(clock_, "ordered");
  RequestFactory requests_{model_};
  ResponseOrderer orderer_;
};

TEST_F(ResponseOrdererTest, ResponsesOfTheFirstRequestGoOutAtOnce) {
  InferenceRequest* a = Adopted("a");
  Adopted("b");
  Respond(a, true);
  EXPECT_THAT(Delivered(), ElementsAre("a:final"));
}

TEST_F(ResponseOrdererTest, HoldsALaterRequestUntilTheEarlierOnesFinalResponse) {
  InferenceRequest* a = Adopted("a");
  InferenceRequest* b = Adopted("b");
  Respond(b, true);
  EXPECT_THAT(Delivered(), IsEmpty());

  Respond(a, false);  // not final: b stays held
  EXPECT_THAT(Delivered(), ElementsAre("a"));

  Respond(a, true);
  EXPECT_THAT(Delivered(), ElementsAre("a", "a:final", "b:final"));
}

TEST_F(ResponseOrdererTest, DeliversSeveralResponsesOfOneRequestInOrder) {
  InferenceRequest* a = Adopted("a");
  InferenceRequest* b = Adopted("b");
  Respond(a, false);
  Respond(b, false);  // held behind a
  Respond(b, false);
  Respond(a, false);
  EXPECT_THAT(Delivered(), ElementsAre("a", "a"));

  Respond(b, true);
  EXPECT_THAT(Delivered(), ElementsAre("a", "a"));

  Respond(a, true);
  EXPECT_THAT(Delivered(), ElementsAre("a", "a", "a:final", "b", "b", "b:final"));
}

TEST_F(ResponseOrdererTest, ReleasesAChainOfHeldRequestsWhenTheFirstFinishes) {
  InferenceRequest* a = Adopted("a");
  InferenceRequest* b = Adopted("b");
  InferenceRequest* c = Adopted("c");
  InferenceRequest* d = Adopted("d");
  Respond(d, true);
  Respond(b, true);
  Respond(c, false);
  EXPECT_THAT(Delivered(), IsEmpty());

  Respond(a, true);  // b is done, c is not: d waits for c's final
  EXPECT_THAT(Delivered(), ElementsAre("a:final", "b:final", "c"));

  Respond(c, true);
  EXPECT_THAT(Delivered(), ElementsAre("a:final", "b:final", "c", "c:final", "d:final"));
}

TEST_F(ResponseOrdererTest, AnErrorResponseCountsAsTheFinalOne) {
  InferenceRequest* a = Adopted("a");
  InferenceRequest* b = Adopted("b");
  Respond(b, true);
  a->RespondWithError(Status::Unavailable("gone"));
  EXPECT_THAT(Delivered(), ElementsAre("a:final", "b:final"));
  const std::vector<LoggedResponse> responses = requests_.log().responses();
  EXPECT_EQ(responses[0].status.code(), Status::Code::kUnavailable);
  EXPECT_TRUE(responses[1].status.ok());
}

}  // namespace
}  // namespace inferd
