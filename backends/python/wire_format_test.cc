#include "wire_format.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace inferd::python {
namespace {

template <typename T>
T At(const std::vector<char>& block, uint64_t offset) {
  T value;
  std::memcpy(&value, block.data() + offset, sizeof value);
  return value;
}

TEST(WireFormatTest, BatchBlockPlacesRecordsThenAlignedData) {
  const float a[4] = {1, 2, 3, 4};
  const float b[2] = {5, 6};
  RequestView request;
  request.handle = 42;
  request.correlation_id = 7;
  request.flags = 3;
  request.timeout_us = 2500000;
  request.id = "req";
  request.parameters_json = R"({"k":1})";
  request.outputs = {"OUT"};
  InputView input;
  input.name = "IN";
  input.datatype = 11;
  input.shape = {2, 3};
  input.byte_size = sizeof a + sizeof b;
  input.buffers = {{a, sizeof a}, {b, sizeof b}};  // two buffers, one tensor
  request.inputs = {input};
  const std::vector<RequestView> batch = {request};

  std::vector<char> block(BatchBlockSize(batch), '\x55');
  const uint64_t block_offset = 4096;
  WriteBatchBlock(batch, block.data(), block_offset);

  EXPECT_EQ(At<uint32_t>(block, 0), 1u);
  EXPECT_EQ(At<uint64_t>(block, 8), 42u);
  EXPECT_EQ(At<uint64_t>(block, 16), 7u);
  EXPECT_EQ(At<uint32_t>(block, 24), 3u);  // flags
  EXPECT_EQ(At<uint32_t>(block, 28), 1u);  // inputs
  EXPECT_EQ(At<uint32_t>(block, 32), 1u);  // outputs
  EXPECT_EQ(At<uint64_t>(block, 48), 2500000u);  // timeout_us, after correlation_len
  EXPECT_EQ(At<uint32_t>(block, 56), 0u);         // trace_len: untraced
  EXPECT_EQ(std::string(block.data() + 64, 3), "req");
  EXPECT_EQ(std::string(block.data() + 72, 7), R"({"k":1})");
  EXPECT_EQ(At<uint32_t>(block, 80), 3u);
  EXPECT_EQ(std::string(block.data() + 84, 3), "OUT");
  const uint64_t input_at = 88;
  EXPECT_EQ(At<uint32_t>(block, input_at), 2u);       // name length
  EXPECT_EQ(At<uint32_t>(block, input_at + 4), 11u);  // datatype
  EXPECT_EQ(At<uint32_t>(block, input_at + 8), 2u);   // dims
  EXPECT_EQ(At<uint64_t>(block, input_at + 16), 24u);
  const uint64_t data_offset = At<uint64_t>(block, input_at + 24);
  EXPECT_EQ(data_offset % 64, 0u);
  EXPECT_EQ(At<int64_t>(block, input_at + 32), 2);
  EXPECT_EQ(At<int64_t>(block, input_at + 40), 3);
  EXPECT_EQ(std::string(block.data() + input_at + 48, 2), "IN");
  const float* data = reinterpret_cast<const float*>(block.data() + data_offset - block_offset);
  EXPECT_EQ(data[0], 1);
  EXPECT_EQ(data[4], 5);
  EXPECT_EQ(data[5], 6);
  EXPECT_LE(data_offset - block_offset + 24, block.size());
}

TEST(WireFormatTest, EachInputOfABatchGetsItsOwnAlignedData) {
  const int32_t x = 1, y = 2;
  std::vector<RequestView> batch(2);
  for (int i = 0; i < 2; ++i) {
    InputView input;
    input.name = "X";
    input.datatype = 8;
    input.shape = {1};
    input.byte_size = 4;
    input.buffers = {{i == 0 ? &x : &y, 4}};
    batch[i].handle = i;
    batch[i].inputs = {input};
  }
  std::vector<char> block(BatchBlockSize(batch));
  WriteBatchBlock(batch, block.data(), 0);
  EXPECT_EQ(block.size() % 64, 0u);
  // The second request's data follows the first's at the next 64 bytes.
  EXPECT_EQ(At<int32_t>(block, block.size() - 64), 2);
  EXPECT_EQ(At<int32_t>(block, block.size() - 128), 1);
}

// Builds a response block the way the stub does.
class BlockBuilder {
 public:
  template <typename T>
  BlockBuilder& Put(T value) {
    const char* p = reinterpret_cast<const char*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof value);
    return *this;
  }
  BlockBuilder& Text(const std::string& text) {
    bytes_.insert(bytes_.end(), text.begin(), text.end());
    while (bytes_.size() % 8) bytes_.push_back(0);
    return *this;
  }
  const std::vector<char>& bytes() const { return bytes_; }

 private:
  std::vector<char> bytes_;
};

TEST(WireFormatTest, ParsesOutputsOfAResponse) {
  BlockBuilder b;
  b.Put<uint32_t>(0).Put<uint32_t>(0).Put<uint32_t>(0).Put<uint32_t>(1);
  b.Put<uint32_t>(4).Put<uint32_t>(11).Put<uint32_t>(1).Put<uint32_t>(0).Put<uint64_t>(8);
  b.Put<int64_t>(2).Text("OUT0");
  b.Put<float>(1.5f).Put<float>(2.5f);
  ResponseView response;
  ASSERT_TRUE(ParseResponseBlock(b.bytes().data(), b.bytes().size(), &response).ok());
  EXPECT_FALSE(response.has_error);
  ASSERT_EQ(response.outputs.size(), 1u);
  EXPECT_EQ(response.outputs[0].name, "OUT0");
  EXPECT_EQ(response.outputs[0].shape, std::vector<int64_t>{2});
  EXPECT_EQ(response.outputs[0].byte_size, 8u);
  float second;
  std::memcpy(&second, response.outputs[0].data + 4, 4);
  EXPECT_EQ(second, 2.5f);
}

TEST(WireFormatTest, ParsesAnError) {
  BlockBuilder b;
  b.Put<uint32_t>(1).Put<uint32_t>(3).Put<uint32_t>(5).Put<uint32_t>(0).Text("bad x");
  ResponseView response;
  ASSERT_TRUE(ParseResponseBlock(b.bytes().data(), b.bytes().size(), &response).ok());
  EXPECT_TRUE(response.has_error);
  EXPECT_EQ(response.error_code, 3u);
  EXPECT_EQ(response.error, "bad x");
}

TEST(WireFormatTest, RejectsLengthsThatLeaveTheBlock) {
  {
    BlockBuilder b;  // error text longer than the block
    b.Put<uint32_t>(1).Put<uint32_t>(3).Put<uint32_t>(500).Put<uint32_t>(0).Text("x");
    ResponseView response;
    EXPECT_FALSE(ParseResponseBlock(b.bytes().data(), b.bytes().size(), &response).ok());
  }
  {
    BlockBuilder b;  // data size beyond the end
    b.Put<uint32_t>(0).Put<uint32_t>(0).Put<uint32_t>(0).Put<uint32_t>(1);
    b.Put<uint32_t>(1).Put<uint32_t>(11).Put<uint32_t>(0).Put<uint32_t>(0);
    b.Put<uint64_t>(~0ull).Text("O");
    ResponseView response;
    EXPECT_FALSE(ParseResponseBlock(b.bytes().data(), b.bytes().size(), &response).ok());
  }
  {
    BlockBuilder b;  // a billion outputs in 16 bytes
    b.Put<uint32_t>(0).Put<uint32_t>(0).Put<uint32_t>(0).Put<uint32_t>(1u << 30);
    ResponseView response;
    EXPECT_FALSE(ParseResponseBlock(b.bytes().data(), b.bytes().size(), &response).ok());
  }
  ResponseView response;
  EXPECT_FALSE(ParseResponseBlock(nullptr, 3, &response).ok());
}

TEST(WireFormatTest, ResponseBlockRoundTrips) {
  const int64_t values[3] = {7, -8, 9};
  ResponseView written;
  OutputView out;
  out.name = "SUM";
  out.datatype = 9;
  out.shape = {1, 3};
  out.data = reinterpret_cast<const char*>(values);
  out.byte_size = sizeof values;
  written.outputs = {out, out};
  written.outputs[1].name = "AGAIN";
  std::vector<char> block(ResponseBlockSize(written));
  WriteResponseBlock(written, block.data());
  ResponseView read;
  ASSERT_TRUE(ParseResponseBlock(block.data(), block.size(), &read).ok());
  ASSERT_EQ(read.outputs.size(), 2u);
  EXPECT_EQ(read.outputs[1].name, "AGAIN");
  EXPECT_EQ(read.outputs[0].shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(std::memcmp(read.outputs[0].data, values, sizeof values), 0);

  ResponseView error;
  error.has_error = true;
  error.error_code = 4;
  error.error = "model 'x' is not ready";
  std::vector<char> error_block(ResponseBlockSize(error));
  WriteResponseBlock(error, error_block.data());
  ASSERT_TRUE(ParseResponseBlock(error_block.data(), error_block.size(), &read).ok());
  EXPECT_TRUE(read.has_error);
  EXPECT_EQ(read.error_code, 4u);
  EXPECT_EQ(read.error, "model 'x' is not ready");
}

TEST(WireFormatTest, ParsesABlsRequest) {
  BlockBuilder b;
  b.Put<uint32_t>(5).Put<uint32_t>(1).Put<uint32_t>(1).Put<uint32_t>(2).Put<uint32_t>(2);
  b.Put<uint32_t>(1).Put<uint32_t>(0).Put<uint32_t>(0);  // flags, a numeric correlation id
  b.Put<int64_t>(-1).Put<uint64_t>(9).Put<uint64_t>(0).Put<uint32_t>(0).Put<uint32_t>(0);
  b.Text("adder").Text("r1").Text("{}");
  b.Put<uint32_t>(3).Text("OUT");  // "OUT" after the length makes 7 bytes, padded
  b.Put<uint32_t>(2).Put<uint32_t>(8).Put<uint32_t>(1).Put<uint32_t>(0).Put<uint64_t>(4);
  b.Put<int64_t>(1).Text("IN").Put<int32_t>(41).Put<int32_t>(0);
  BlsRequestView request;
  ASSERT_TRUE(ParseBlsRequest(b.bytes().data(), b.bytes().size(), &request).ok());
  EXPECT_EQ(request.model, "adder");
  EXPECT_EQ(request.version, -1);
  EXPECT_EQ(request.id, "r1");
  EXPECT_EQ(request.correlation_id, 9u);
  EXPECT_EQ(request.correlation_id_string, "");
  EXPECT_EQ(request.flags, 1u);
  EXPECT_EQ(request.outputs, std::vector<std::string_view>{"OUT"});
  ASSERT_EQ(request.inputs.size(), 1u);
  EXPECT_EQ(request.inputs[0].name, "IN");
  int32_t value;
  std::memcpy(&value, request.inputs[0].data, 4);
  EXPECT_EQ(value, 41);
  // Cut anywhere, it is refused rather than read past its end.
  for (size_t cut = 0; cut < b.bytes().size() - 8; cut += 4) {
    EXPECT_FALSE(ParseBlsRequest(b.bytes().data(), cut, &request).ok()) << cut;
  }
}

TEST(WireFormatTest, ABlsRequestCarriesAStringCorrelationIdAndItsTimeout) {
  BlockBuilder b;
  b.Put<uint32_t>(3).Put<uint32_t>(0).Put<uint32_t>(0).Put<uint32_t>(0).Put<uint32_t>(0);
  b.Put<uint32_t>(2).Put<uint32_t>(10).Put<uint32_t>(kBlsSingleResponse);  // END, a 10-byte id
  b.Put<int64_t>(3).Put<uint64_t>(0).Put<uint64_t>(250000).Put<uint32_t>(55).Put<uint32_t>(0);
  b.Text("acc").Text("").Text("").Text("session-42");
  b.Text("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  BlsRequestView request;
  ASSERT_TRUE(ParseBlsRequest(b.bytes().data(), b.bytes().size(), &request).ok());
  EXPECT_EQ(request.model, "acc");
  EXPECT_EQ(request.version, 3);
  EXPECT_EQ(request.flags, 2u);
  EXPECT_EQ(request.correlation_id_string, "session-42");
  EXPECT_EQ(request.timeout_us, 250000u);
  EXPECT_EQ(request.options, kBlsSingleResponse);
  EXPECT_EQ(request.traceparent, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  // A length past the block's end is refused.
  BlockBuilder lying;
  lying.Put<uint32_t>(3).Put<uint32_t>(0).Put<uint32_t>(0).Put<uint32_t>(0).Put<uint32_t>(0);
  lying.Put<uint32_t>(0).Put<uint32_t>(1000).Put<uint32_t>(0);
  lying.Put<int64_t>(-1).Put<uint64_t>(0).Put<uint64_t>(0).Put<uint32_t>(0).Put<uint32_t>(0);
  lying.Text("acc").Text("x");
  EXPECT_FALSE(ParseBlsRequest(lying.bytes().data(), lying.bytes().size(), &request).ok());
}

TEST(WireFormatTest, ARequestsStringCorrelationIdFollowsItsParameters) {
  RequestView request;
  request.correlation_id_string = "seq-b";
  request.id = "r";
  request.parameters_json = "{}";
  const std::vector<RequestView> batch = {request};
  std::vector<char> block(BatchBlockSize(batch));
  WriteBatchBlock(batch, block.data(), 0);
  EXPECT_EQ(At<uint64_t>(block, 16), 0u);  // no numeric id
  EXPECT_EQ(At<uint32_t>(block, 44), 5u);  // correlation_len
  EXPECT_EQ(At<uint64_t>(block, 48), 0u);  // no timeout
  EXPECT_EQ(std::string(block.data() + 64, 1), "r");
  EXPECT_EQ(std::string(block.data() + 72, 2), "{}");
  EXPECT_EQ(std::string(block.data() + 80, 5), "seq-b");
}

TEST(WireFormatTest, ATracedRequestsTraceparentFollowsItsCorrelationId) {
  RequestView request;
  request.correlation_id_string = "s";
  request.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  const std::vector<RequestView> batch = {request};
  std::vector<char> block(BatchBlockSize(batch));
  WriteBatchBlock(batch, block.data(), 0);
  EXPECT_EQ(At<uint32_t>(block, 56), 55u);  // trace_len
  // id "" and parameters "{}" (8), "s" (8), then the traceparent.
  EXPECT_EQ(std::string(block.data() + 80, 55), request.traceparent);
  EXPECT_GE(block.size(), 80u + 56);
}

}  // namespace
}  // namespace inferd::python
