// SPDX-License-Identifier: MIT
// The growable structs of hio.h across the ABI: a caller's struct_size says
// how much of a struct it knows, and the library reads and writes no more
// than that.
#pragma once
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "util/error.hpp"

#include "hybridio/hio_adaptive.h"

namespace hio::abi {

// The function that fills a struct with its defaults, for messages (none for
// the structs the library fills in).
template <class T>
struct Init {
  static constexpr const char* name = nullptr;
};
template <>
struct Init<hio_queue_opts> {
  static constexpr const char* name = "hio_queue_opts_init";
};
template <>
struct Init<hio_open_opts> {
  static constexpr const char* name = "hio_open_opts_init";
};
template <>
struct Init<hio_handle_opts> {
  static constexpr const char* name = "hio_handle_opts_init";
};
template <>
struct Init<hio_strategy> {
  static constexpr const char* name = "hio_strategy_init";
};
template <>
struct Init<hio_reaper_opts> {
  static constexpr const char* name = "hio_reaper_opts_init";
};

// Fills the caller's *o with T's defaults, no more of them than size says,
// and sets its struct_size to size.
template <class T>
void init(T* o, size_t size, const T& defaults) {
  if (!o || size < sizeof(size_t)) return;
  std::memcpy(o, &defaults, std::min(size, sizeof(T)));
  o->struct_size = size;
}

// The bytes of T a caller knows, from the struct_size it set; -EINVAL (with
// the message) where it is 0 (a struct left unset, which would otherwise
// lose every field it has past an older layout without a word) or too small
// to hold struct_size itself.
template <class T>
long known_size(size_t struct_size, const char* name) {
  if (struct_size == 0)
    return failf(EINVAL, "%s.struct_size is 0: set it to sizeof(%s)%s", name, name,
                 Init<T>::name ? (std::string(" (") + Init<T>::name + " does, with the defaults)").c_str() : "");
  if (struct_size < sizeof(size_t))
    return failf(EINVAL, "%s.struct_size %zu is too small (set it to sizeof(%s))", name, struct_size, name);
  return long(struct_size);
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

// A strategy's reserved fields zero (set ones are a newer hio.h's, or a
// strategy never initialised); name says where, e.g. "hio_queue_opts.strategy".
inline int check_strategy(const hio_strategy& s, const char* name) {
  for (uint32_t r : s.reserved)
    if (r) return failf(EINVAL, "%s: its reserved fields are not zero (fill it with hio_strategy_init)", name);
  return 0;
}

// T's embedded strategy: the default where the caller's layout ends before
// it (in is NULL, or an older struct), else checked as above. Its
// struct_size is not read: the options' own says the layout.
template <class T>
int take_strategy(const T* in, T* o, const char* name) {
  if (!in || in->struct_size <= offsetof(T, strategy)) {
    o->strategy = hio_strategy{};
    o->strategy.struct_size = sizeof o->strategy;
    return 0;
  }
  return check_strategy(o->strategy, name);
}

// Commands with their reserved fields zero, else -EINVAL naming the first
// that is not: a per-command option this library lacks, or garbage.
inline int check_commands(const hio_io* ios, unsigned n) {
  for (unsigned i = 0; i < n; ++i)
    for (uint64_t r : ios[i].reserved)
      if (r)
        return failf(EINVAL, "command %u (tag %llu): its reserved fields are not zero", i,
                     (unsigned long long)ios[i].tag);
  return 0;
}

}  // namespace hio::abi
