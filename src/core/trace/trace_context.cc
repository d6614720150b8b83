#include "core/trace/trace_context.h"

#include <algorithm>
#include <cstring>
#include <random>

namespace inferd {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // upper case is invalid in traceparent
}

// Reads 2*N lower-case hex digits into `out`.
template <size_t N>
bool ReadHex(std::string_view text, std::array<uint8_t, N>* out) {
  if (text.size() != 2 * N) return false;
  for (size_t i = 0; i < N; ++i) {
    const int high = HexDigit(text[2 * i]);
    const int low = HexDigit(text[2 * i + 1]);
    if (high < 0 || low < 0) return false;
    (*out)[i] = static_cast<uint8_t>(high << 4 | low);
  }
  return true;
}

template <size_t N>
bool AllZero(const std::array<uint8_t, N>& bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

// splitmix64 (Steele, Lea and Flood): a few instructions per 64 random
// bits, statistically sound for ids (W3C asks for random, not unguessable,
// ids); one stream per thread, seeded from the system.
class SplitMix64 {
 public:
  SplitMix64() {
    std::random_device device;
    state_ = (uint64_t{device()} << 32) ^ device();
  }
  uint64_t operator()() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

SplitMix64& Generator() {
  thread_local SplitMix64 generator;
  return generator;
}

// 64 random bits, never zero (W3C ids are invalid all zero; one draw in
// 2^64 is moved to 1 rather than drawn again).
uint64_t NonZeroRandom() {
  const uint64_t word = Generator()();
  return word != 0 ? word : 1;
}

// "00" .. "ff": two digits a byte, one two-byte copy each.
constexpr std::array<char, 512> kHexPairs = [] {
  constexpr char kDigits[] = "0123456789abcdef";
  std::array<char, 512> pairs{};
  for (size_t i = 0; i < 256; ++i) {
    pairs[2 * i] = kDigits[i >> 4];
    pairs[2 * i + 1] = kDigits[i & 0xf];
  }
  return pairs;
}();

char* WriteHex(char* out, const uint8_t* bytes, size_t size) {
  for (size_t i = 0; i < size; ++i, out += 2) std::memcpy(out, &kHexPairs[2 * bytes[i]], 2);
  return out;
}

}  // namespace

std::optional<TraceContext> ParseTraceparent(std::string_view text) {
  // version "-" trace-id "-" parent-id "-" flags: 2+1+32+1+16+1+2 = 55.
  constexpr size_t kLength = 55;
  if (text.size() < kLength) return std::nullopt;
  std::array<uint8_t, 1> version{};
  std::array<uint8_t, 1> flags{};
  TraceContext context;
  if (!ReadHex(text.substr(0, 2), &version) || version[0] == 0xff || text[2] != '-' ||
      !ReadHex(text.substr(3, 32), &context.trace_id) || text[35] != '-' ||
      !ReadHex(text.substr(36, 16), &context.span_id) || text[52] != '-' ||
      !ReadHex(text.substr(53, 2), &flags)) {
    return std::nullopt;
  }
  // Version 00 has exactly these fields; a later one may add "-..." after them.
  if (text.size() > kLength && (version[0] == 0 || text[kLength] != '-')) return std::nullopt;
  if (AllZero(context.trace_id) || AllZero(context.span_id)) return std::nullopt;
  context.sampled = (flags[0] & 1) != 0;
  return context;
}

std::string Hex(const uint8_t* bytes, size_t size) {
  std::string text(2 * size, '0');
  WriteHex(text.data(), bytes, size);
  return text;
}

Traceparent FormatTraceparent(const TraceId& trace_id, const SpanId& span_id, bool sampled) {
  Traceparent traceparent;
  char* out = traceparent.text.data();
  std::memcpy(out, "00-", 3);
  out = WriteHex(out + 3, trace_id.data(), trace_id.size());
  *out++ = '-';
  out = WriteHex(out, span_id.data(), span_id.size());
  std::memcpy(out, sampled ? "-01" : "-00", 4);  // with the terminating NUL
  return traceparent;
}

// Either half of a trace id is non-zero, so the id is.
TraceId NewTraceId() {
  TraceId id;
  const uint64_t high = Generator()();
  const uint64_t low = NonZeroRandom();
  std::memcpy(id.data(), &high, sizeof(high));
  std::memcpy(id.data() + sizeof(high), &low, sizeof(low));
  return id;
}

SpanId NewSpanId() {
  SpanId id;
  const uint64_t word = NonZeroRandom();
  std::memcpy(id.data(), &word, sizeof(word));
  return id;
}

}  // namespace inferd
