// Giving the memory that loading and unloading models freed back to the
// system. glibc's malloc keeps freed memory for reuse: after a model loads, the
// buffers its runtime read the file into and copied weights through are free
// but still resident (an ONNX model of 36 MB of weights left 70 MB resident
// before this), and an unloaded model's memory stays resident for good.
// Thread-safe.
#ifndef INFERD_CORE_COMMON_FREED_MEMORY_H_
#define INFERD_CORE_COMMON_FREED_MEMORY_H_

namespace inferd {

// Returns the free memory of every malloc arena to the system (malloc_trim);
// a no-op on C libraries without it. Costs a walk over the free lists: call it
// after a model operation, never on the request path.
void ReturnFreedMemory();

// Fixes malloc's mmap threshold at its default (128 KiB), turning off glibc's
// dynamic threshold (which rises to the size of each mapped block freed, up
// to 32 MiB): every large buffer (a model's weights) is then mapped alone and
// unmapped when freed, so memory a model frees leaves the process at once and
// the growth around a load is that load's. For the model memory budget;
// costs a mapping per large allocation. A no-op without glibc.
void MapLargeAllocationsAlone();

}  // namespace inferd

#endif  // INFERD_CORE_COMMON_FREED_MEMORY_H_
