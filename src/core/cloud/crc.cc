#include "core/cloud/crc.h"

#include <zlib.h>

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#include <wmmintrin.h>
#endif

namespace inferd {
namespace {

// Slicing-by-8 tables of a reflected CRC of width T: table[0] is the classic
// byte-at-a-time table, table[k][b] the CRC of byte b followed by k zero bytes,
// so eight input bytes cost eight lookups and no dependency chain between them.
template <typename T, T kPolynomial>
struct SlicingTables {
  std::array<std::array<T, 256>, 8> table{};

  constexpr SlicingTables() {
    for (unsigned b = 0; b < 256; ++b) {
      T crc = b;
      for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ kPolynomial : crc >> 1;
      table[0][b] = crc;
    }
    for (unsigned b = 0; b < 256; ++b) {
      for (size_t k = 1; k < 8; ++k) {
        table[k][b] = (table[k - 1][b] >> 8) ^ table[0][table[k - 1][b] & 0xff];
      }
    }
  }

  // The CRC register (already inverted) advanced over `size` bytes.
  T Update(T crc, const unsigned char* p, size_t size) const {
    for (; size >= 8; p += 8, size -= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);  // little-endian: the first byte is the low one
      word ^= static_cast<uint64_t>(crc);  // the whole register is in these 8 bytes
      crc = table[7][word & 0xff] ^ table[6][(word >> 8) & 0xff] ^
             table[5][(word >> 16) & 0xff] ^ table[4][(word >> 24) & 0xff] ^
             table[3][(word >> 32) & 0xff] ^ table[2][(word >> 40) & 0xff] ^
             table[1][(word >> 48) & 0xff] ^ table[0][word >> 56];
    }
    for (; size > 0; ++p, --size) crc = (crc >> 8) ^ table[0][(crc ^ *p) & 0xff];
    return crc;
  }
};

constexpr SlicingTables<uint32_t, 0x82F63B78u> kCrc32cTables;
constexpr SlicingTables<uint64_t, 0x9A6C9329AC4BC9B5ull> kCrc64NvmeTables;

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t Crc32cSse42(uint32_t crc, const unsigned char* p,
                                                        size_t size) {
  uint64_t state = ~crc;
  for (; size >= 8; p += 8, size -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    state = _mm_crc32_u64(state, word);
  }
  uint32_t state32 = static_cast<uint32_t>(state);
  for (; size > 0; ++p, --size) state32 = _mm_crc32_u8(state32, *p);
  return ~state32;
}

// CRC64NVME by folding: a 16-byte block followed by 16 more is worth its
// halves times x^191 and x^127 mod P (a carry-less product of bit-reflected
// values comes out times x, hence one less than 192 and 128), added to the
// next block, so the whole message folds into one 16-byte block with the same
// CRC, finished by the tables. `state` is the register (already inverted);
// at least 32 bytes.
__attribute__((target("pclmul"))) uint64_t Crc64NvmeClmul(uint64_t state,
                                                           const unsigned char* p,
                                                           size_t size) {
  constexpr uint64_t kX191 = 0xeadc41fd2ba3d420ull;  // bit-reflected x^191 mod P
  constexpr uint64_t kX127 = 0x21e9761e252621acull;  // bit-reflected x^127 mod P
  const __m128i k = _mm_set_epi64x(static_cast<long long>(kX127), static_cast<long long>(kX191));
  __m128i acc = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)),
                              _mm_cvtsi64_si128(static_cast<long long>(state)));
  for (p += 16, size -= 16; size >= 16; p += 16, size -= 16) {
    // The first 8 bytes are the block's high-degree half: times x^191.
    const __m128i high = _mm_clmulepi64_si128(acc, k, 0x00);
    const __m128i low = _mm_clmulepi64_si128(acc, k, 0x11);
    acc = _mm_xor_si128(_mm_xor_si128(high, low),
                        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  unsigned char folded[16];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(folded), acc);
  return kCrc64NvmeTables.Update(kCrc64NvmeTables.Update(0, folded, 16), p, size);
}

bool HaveSse42() {
  static const bool have = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") != 0;
  }();
  return have;
}

bool HavePclmul() {
  static const bool have = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") != 0;
  }();
  return have;
}
#endif

}  // namespace

uint32_t Crc32(uint32_t crc, const void* data, size_t size) {
  return static_cast<uint32_t>(
      crc32_z(crc, static_cast<const Bytef*>(data), static_cast<z_size_t>(size)));
}

uint32_t Crc32cPortable(uint32_t crc, const void* data, size_t size) {
  return ~kCrc32cTables.Update(~crc, static_cast<const unsigned char*>(data), size);
}

uint32_t Crc32c(uint32_t crc, const void* data, size_t size) {
#if defined(__x86_64__)
  if (HaveSse42()) return Crc32cSse42(crc, static_cast<const unsigned char*>(data), size);
#endif
  return Crc32cPortable(crc, data, size);
}

uint64_t Crc64NvmePortable(uint64_t crc, const void* data, size_t size) {
  return ~kCrc64NvmeTables.Update(~crc, static_cast<const unsigned char*>(data), size);
}

uint64_t Crc64Nvme(uint64_t crc, const void* data, size_t size) {
#if defined(__x86_64__)
  if (size >= 32 && HavePclmul()) {
    return ~Crc64NvmeClmul(~crc, static_cast<const unsigned char*>(data), size);
  }
#endif
  return Crc64NvmePortable(crc, data, size);
}

}  // namespace inferd
