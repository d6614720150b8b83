// The cyclic redundancy checks object stores state for an object's content
// (S3's flexible checksums, GCS's crc32c), each continued over chunks as they
// arrive: start from 0, pass each chunk with the value so far, and the last
// value is the check of the whole (the initial and final inversions are
// inside). Values are the numbers the stores encode big-endian in base64.
//   CRC32      zlib's crc32 (ISO-HDLC, reflected 0xEDB88320).
//   CRC32C     Castagnoli (reflected 0x82F63B78): SSE4.2's crc32 instruction
//              where the CPU has it (checked at run time), else tables.
//   CRC64NVME  NVMe's CRC-64 (reflected 0x9A6C9329AC4BC9B5), S3's CRC64NVME:
//              no library on Debian 12 has it, so it is ours: carry-less
//              multiplication (PCLMULQDQ, checked at run time) folding 16
//              bytes at a time, else slicing-by-8 tables.
#ifndef INFERD_CORE_CLOUD_CRC_H_
#define INFERD_CORE_CLOUD_CRC_H_

#include <cstddef>
#include <cstdint>

namespace inferd {

uint32_t Crc32(uint32_t crc, const void* data, size_t size);
uint32_t Crc32c(uint32_t crc, const void* data, size_t size);
uint64_t Crc64Nvme(uint64_t crc, const void* data, size_t size);

// The portable tables, whatever the CPU (tests compare them with the
// instructions' results).
uint32_t Crc32cPortable(uint32_t crc, const void* data, size_t size);
uint64_t Crc64NvmePortable(uint64_t crc, const void* data, size_t size);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_CRC_H_
