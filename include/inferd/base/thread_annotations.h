// Clang thread-safety annotations (-Wthread-safety); empty on other compilers.
// The Clang build (make clang-check) turns every violation into an error.
#ifndef INFERD_BASE_THREAD_ANNOTATIONS_H_
#define INFERD_BASE_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define INFERD_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define INFERD_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) INFERD_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY INFERD_THREAD_ANNOTATION(scoped_lockable)
// Abseil (which gRPC's headers include) defines these four names too, with
// the same attributes; whichever header comes first keeps its definition, so
// a file including both gets no redefinition warning.
#ifndef GUARDED_BY
#define GUARDED_BY(x) INFERD_THREAD_ANNOTATION(guarded_by(x))
#endif
#ifndef PT_GUARDED_BY
#define PT_GUARDED_BY(x) INFERD_THREAD_ANNOTATION(pt_guarded_by(x))
#endif
#ifndef ACQUIRED_AFTER
#define ACQUIRED_AFTER(...) INFERD_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
#endif
#define REQUIRES(...) INFERD_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define ACQUIRE(...) INFERD_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) INFERD_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) INFERD_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define EXCLUDES(...) INFERD_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) INFERD_THREAD_ANNOTATION(assert_capability(x))
#define RETURN_CAPABILITY(x) INFERD_THREAD_ANNOTATION(lock_returned(x))
#ifndef NO_THREAD_SAFETY_ANALYSIS
#define NO_THREAD_SAFETY_ANALYSIS INFERD_THREAD_ANNOTATION(no_thread_safety_analysis)
#endif

#endif  // INFERD_BASE_THREAD_ANNOTATIONS_H_
