// Request body inflation and response compression with zlib.
#include "http/compression.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace inferd::http {
namespace {

// Compresses with zlib: windowBits 15 = zlib wrapper, 31 = gzip, -15 = raw.
std::string Deflate(const std::string& input, int window_bits) {
  z_stream stream{};
  EXPECT_EQ(deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY),
            Z_OK);
  std::string output(deflateBound(&stream, input.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = reinterpret_cast<Bytef*>(output.data());
  stream.avail_out = static_cast<uInt>(output.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  output.resize(stream.total_out);
  deflateEnd(&stream);
  return output;
}

std::string Body() {
  std::string body = R"({"inputs":[{"name":"IN","shape":[4096],"datatype":"FP32","data":[)";
  for (int i = 0; i < 4096; ++i) body += (i ? "," : "") + std::to_string(i % 7);
  return body + "]}]}";
}

TEST(CompressionTest, InflatesGzip) {
  std::string output;
  ASSERT_TRUE(Inflate(Deflate(Body(), 31), Encoding::kGzip, 1 << 20, &output).ok());
  EXPECT_EQ(output, Body());
}

TEST(CompressionTest, InflatesZlibDeflate) {
  std::string output;
  ASSERT_TRUE(Inflate(Deflate(Body(), 15), Encoding::kDeflate, 1 << 20, &output).ok());
  EXPECT_EQ(output, Body());
}

TEST(CompressionTest, InflatesRawDeflate) {
  std::string output;
  ASSERT_TRUE(Inflate(Deflate(Body(), -15), Encoding::kDeflate, 1 << 20, &output).ok());
  EXPECT_EQ(output, Body());
}

TEST(CompressionTest, CorruptStreamIs400) {
  std::string output;
  std::string corrupt = Deflate(Body(), 31);
  corrupt[corrupt.size() / 2] ^= 0x55;
  corrupt[corrupt.size() / 2 + 1] ^= 0x33;
  EXPECT_EQ(Inflate(corrupt, Encoding::kGzip, 1 << 20, &output).http_status(), 400u);
  EXPECT_EQ(Inflate("not gzip at all", Encoding::kGzip, 1 << 20, &output).http_status(), 400u);
}

TEST(CompressionTest, TruncatedStreamIs400) {
  std::string output;
  const std::string whole = Deflate(Body(), 15);
  EXPECT_EQ(Inflate(whole.substr(0, whole.size() / 2), Encoding::kDeflate, 1 << 20, &output)
                .http_status(),
            400u);
}

TEST(CompressionTest, OutputOverTheLimitIs413) {
  std::string output;
  EXPECT_EQ(Inflate(Deflate(std::string(100000, 'a'), 31), Encoding::kGzip, 1000, &output)
                .http_status(),
            413u);
}

TEST(CompressionTest, ParsesContentEncoding) {
  bool supported = false;
  EXPECT_EQ(ParseContentEncoding("gzip", &supported), Encoding::kGzip);
  EXPECT_TRUE(supported);
  EXPECT_EQ(ParseContentEncoding(" Deflate ", &supported), Encoding::kDeflate);
  EXPECT_EQ(ParseContentEncoding("", &supported), Encoding::kIdentity);
  EXPECT_TRUE(supported);
  ParseContentEncoding("br", &supported);
  EXPECT_FALSE(supported);
}

TEST(CompressionTest, ChoosesResponseEncodingFromAcceptEncoding) {
  EXPECT_EQ(ChooseResponseEncoding(""), Encoding::kIdentity);
  EXPECT_EQ(ChooseResponseEncoding("deflate"), Encoding::kDeflate);
  EXPECT_EQ(ChooseResponseEncoding("deflate, gzip"), Encoding::kGzip);
  EXPECT_EQ(ChooseResponseEncoding("gzip;q=0, deflate;q=0.5"), Encoding::kDeflate);
  EXPECT_EQ(ChooseResponseEncoding("br, identity"), Encoding::kIdentity);
}

TEST(CompressionTest, DecodesPerContentEncodingHeader) {
  std::string body = Deflate(Body(), 31);
  ASSERT_TRUE(DecodeContentEncoding("gzip", 1 << 20, &body).ok());
  EXPECT_EQ(body, Body());
  ASSERT_TRUE(DecodeContentEncoding("", 1 << 20, &body).ok());
  EXPECT_EQ(body, Body());
  EXPECT_EQ(DecodeContentEncoding("br", 1 << 20, &body).http_status(), 415u);
}

TEST(CompressionTest, CompressorOutputInflatesBack) {
  for (Encoding encoding : {Encoding::kGzip, Encoding::kDeflate}) {
    Compressor compressor(encoding);
    std::string compressed;
    const std::string body = Body();
    ASSERT_TRUE(compressor.Append(body.substr(0, 100), false, &compressed).ok());
    ASSERT_TRUE(compressor.Append(body.substr(100), true, &compressed).ok());
    std::string output;
    ASSERT_TRUE(Inflate(compressed, encoding, 1 << 20, &output).ok());
    EXPECT_EQ(output, body);
  }
}

}  // namespace
}  // namespace inferd::http
