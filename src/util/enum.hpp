// SPDX-License-Identifier: MIT
// Reads a C enum a caller filled in as the int it holds: a value outside
// the enumerators would be undefined behaviour to load as the enum in C++.
#pragma once
#include <cstring>

namespace hio {

template <class E>
int raw_enum(const E& e) {
  static_assert(sizeof(E) == sizeof(int));
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

}  // namespace hio
