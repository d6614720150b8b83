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

}  // namespace inferd

#endif  // INFERD_CORE_COMMON_FREED_MEMORY_H_
