#pragma once
// CS_UNDER_ASAN is 1 when this file is compiled with AddressSanitizer: gcc says so with
// __SANITIZE_ADDRESS__, clang (the sanitizer pass's compiler) only through __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define CS_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CS_UNDER_ASAN 1
#endif
#endif
#ifndef CS_UNDER_ASAN
#define CS_UNDER_ASAN 0
#endif
