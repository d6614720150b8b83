// The request accessors of the backend API (backend.h) on a request as the
// frontends build it: the client's timeout, and a missing argument refused.
#include <gtest/gtest.h>

#include "core/infer/inference_request.h"
#include "inferd/backend.h"

namespace inferd {
namespace {

INFERD_Request* Wrap(InferenceRequest* request) {
  return reinterpret_cast<INFERD_Request*>(request);
}

TEST(BackendRequestApiTest, TimeoutIsTheClientsInMicroseconds) {
  InferenceRequest request("m", -1);
  uint64_t timeout_us = 99;
  ASSERT_EQ(INFERD_RequestTimeoutMicroseconds(Wrap(&request), &timeout_us), nullptr);
  EXPECT_EQ(timeout_us, 0u);  // none given
  request.timeout_us = 2500000;
  ASSERT_EQ(INFERD_RequestTimeoutMicroseconds(Wrap(&request), &timeout_us), nullptr);
  EXPECT_EQ(timeout_us, 2500000u);
}

TEST(BackendRequestApiTest, TimeoutWithoutRequestOrOutIsInvalid) {
  InferenceRequest request("m", -1);
  uint64_t timeout_us = 7;
  for (INFERD_Error* err : {INFERD_RequestTimeoutMicroseconds(nullptr, &timeout_us),
                            INFERD_RequestTimeoutMicroseconds(Wrap(&request), nullptr)}) {
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(INFERD_ErrorCode(err), INFERD_ERROR_INVALID_ARG);
    INFERD_ErrorDelete(err);
  }
  EXPECT_EQ(timeout_us, 7u);  // a refused call writes nothing
}

TEST(BackendRequestApiTest, VersionNamesTheMinorThatAddedTheTimeout) {
  uint32_t major = 0;
  uint32_t minor = 0;
  ASSERT_EQ(INFERD_BackendApiVersion(&major, &minor), nullptr);
  EXPECT_EQ(major, 0u);
  EXPECT_GE(minor, 8u);
}

}  // namespace
}  // namespace inferd
