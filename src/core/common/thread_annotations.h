// Clang thread-safety annotations; empty on other compilers.
#ifndef INFERD_CORE_COMMON_THREAD_ANNOTATIONS_H_
#define INFERD_CORE_COMMON_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define INFERD_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define INFERD_THREAD_ANNOTATION(x)
#endif

#define GUARDED_BY(x) INFERD_THREAD_ANNOTATION(guarded_by(x))
#define REQUIRES(...) INFERD_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define EXCLUDES(...) INFERD_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

#endif  // INFERD_CORE_COMMON_THREAD_ANNOTATIONS_H_
