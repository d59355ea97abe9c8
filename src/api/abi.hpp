// SPDX-License-Identifier: MIT
// The growable structs of hio.h across the ABI: a caller's struct_size says
// how much of a struct it knows (0: hybridio 0.1's layout, today's), and the
// library reads and writes no more than that.
#pragma once
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>

#include "util/error.hpp"

#include "hybridio/hio_adaptive.h"

namespace hio::abi {

// Each struct's size in hybridio 0.1, which a struct_size of 0 stands for:
// when a struct grows, its entry here stays.
template <class T>
constexpr size_t kSize01 = 0;
template <>
constexpr size_t kSize01<hio_queue_opts> = 48;
template <>
constexpr size_t kSize01<hio_open_opts> = 24;
template <>
constexpr size_t kSize01<hio_target_info> = 40;
template <>
constexpr size_t kSize01<hio_queue_stats> = 248;
template <>
constexpr size_t kSize01<hio_adaptive_view> = 192;
template <>
constexpr size_t kSize01<hio_cache_stats> = 80;
template <>
constexpr size_t kSize01<hio_reaper_opts> = 24;
template <>
constexpr size_t kSize01<hio_reaper_stats> = 80;
template <>
constexpr size_t kSize01<hio_handle_opts> = 120;
template <>
constexpr size_t kSize01<hio_handle_stats> = 208;

// The bytes of T a caller knows, from the struct_size it set; -EINVAL (with
// the message) where it is too small to hold struct_size itself.
template <class T>
long known_size(size_t struct_size, const char* name) {
  static_assert(kSize01<T> && sizeof(T) >= kSize01<T>, "a growable struct shrank, or has no 0.1 size here");
  size_t n = struct_size ? struct_size : kSize01<T>;
  if (n < sizeof(size_t))
    return failf(EINVAL, "%s.struct_size %zu is too small (set it to sizeof(%s))", name, struct_size, name);
  return long(n);
}

// *out = the caller's *in as this library's T: fields the caller's layout
// lacks are zero (their defaults). A newer caller's fields past T must be
// zero, else -EINVAL: this library cannot honour them. in may be NULL (all
// defaults).
template <class T>
int take(const T* in, T* out, const char* name) {
  *out = T{};
  if (!in) return 0;
  long n = known_size<T>(in->struct_size, name);
  if (n < 0) return int(n);
  const auto* bytes = reinterpret_cast<const unsigned char*>(in);
  for (size_t i = sizeof(T); i < size_t(n); ++i)
    if (bytes[i])
      return failf(EINVAL,
                   "%s: byte %zu of its %ld is set, past the %zu this library knows (a program built against a "
                   "newer hio.h, using a field this library does not have)",
                   name, i, n, sizeof(T));
  std::memcpy(out, in, std::min(size_t(n), sizeof(T)));
  out->struct_size = sizeof(T);
  return 0;
}

// Copies full into the caller's *out, no more of it than the caller's
// struct_size says, which stays as the caller set it.
template <class T>
int give(T* out, const T& full, const char* name) {
  size_t caller = out->struct_size;
  long n = known_size<T>(caller, name);
  if (n < 0) return int(n);
  std::memcpy(out, &full, std::min(size_t(n), sizeof(T)));
  out->struct_size = caller;
  return 0;
}

}  // namespace hio::abi
