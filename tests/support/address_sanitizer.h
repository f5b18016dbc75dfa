// Whether this test is compiled under AddressSanitizer: GCC says so with __SANITIZE_ADDRESS__,
// clang only through __has_feature.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define RTRACE_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RTRACE_UNDER_ASAN 1
#endif
#endif
