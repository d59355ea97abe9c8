// SPDX-License-Identifier: MIT
#include "util/parse.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace hio {

bool parse_size(const std::string& s, uint64_t* out) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno) return false;
  std::string suf(end);
  for (auto& ch : suf) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  unsigned shift = 0;
  if (suf.empty() || suf == "b")
    shift = 0;
  else if (suf == "k" || suf == "kb" || suf == "kib")
    shift = 10;
  else if (suf == "m" || suf == "mb" || suf == "mib")
    shift = 20;
  else if (suf == "g" || suf == "gb" || suf == "gib")
    shift = 30;
  else if (suf == "t" || suf == "tb" || suf == "tib")
    shift = 40;
  else
    return false;
  if (shift && v > (UINT64_MAX >> shift)) return false;
  *out = uint64_t(v) << shift;
  return true;
}

bool parse_double(const std::string& s, double* out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (errno || *end || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

bool parse_int(const std::string& s, long long* out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

}  // namespace hio
