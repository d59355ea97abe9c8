// SPDX-License-Identifier: MIT
#include "config.hpp"

#include <cstdlib>
#include <optional>
#include <string_view>

namespace hybridio::rocksdb {
namespace {

constexpr std::string_view kScheme = "hybridio://";
// Each key is spelled as hio-bench's option and the fio engine's (docs/options.md).
constexpr const char* kKeys =
    "completion, adaptive_objective, background_completion, cache_mb, cache_policy, direct, depth, readahead, "
    "writes, emulate, stats";

bool parse_wait(const std::string& v, hio_wait_mode* m) {
  if (v == "interrupt")
    *m = HIO_WAIT_INTERRUPT;
  else if (v == "poll")
    *m = HIO_WAIT_POLL;
  else if (v == "hybrid")
    *m = HIO_WAIT_HYBRID;
  else if (v == "adaptive")
    *m = HIO_WAIT_ADAPTIVE;
  else
    return false;
  return true;
}

bool parse_uint(const std::string& v, uint64_t max, uint64_t* out) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 19) return false;
  *out = std::strtoull(v.c_str(), nullptr, 10);
  return *out <= max;
}

std::string bad(const std::string& uri, const std::string& key, const std::string& v, const char* expected) {
  return "hybridio URI '" + uri + "': bad value '" + v + "' for " + key + " (expected " + expected + ")";
}

// The setters below each take one group of keys: they return the error for a
// bad value ("" for a good one), or nothing when the key is not theirs.

std::optional<std::string> set_completion(const std::string& uri, const std::string& key, const std::string& v,
                                          Config* c) {
  if (key == "completion" || key == "background_completion") {
    if (!parse_wait(v, key == "completion" ? &c->wait : &c->background))
      return bad(uri, key, v, "interrupt, poll, hybrid or adaptive");
  } else if (key == "adaptive_objective") {
    if (hio_objective_parse(v.c_str(), &c->objective) < 0) return bad(uri, key, v, "shared or own");
  } else if (key == "depth") {
    uint64_t n = 0;
    if (!parse_uint(v, 4096, &n) || n == 0) return bad(uri, key, v, "a queue depth, 1..4096");
    c->depth = unsigned(n);
  } else {
    return std::nullopt;
  }
  return "";
}

std::optional<std::string> set_cache(const std::string& uri, const std::string& key, const std::string& v, Config* c) {
  if (key == "cache_mb") {
    uint64_t n = 0;
    if (!parse_uint(v, 1 << 20, &n)) return bad(uri, key, v, "a size in MiB, 0..1048576");
    c->cache_mb = n;
  } else if (key == "cache_policy") {
    if (v == "writethrough")
      c->cache_policy = HIO_CACHE_WRITE_THROUGH;
    else if (v == "writeback")
      c->cache_policy = HIO_CACHE_WRITE_BACK;
    else
      return bad(uri, key, v, "writethrough or writeback");
  } else if (key == "readahead") {
    if (v == "auto")
      c->readahead = HIO_READAHEAD_AUTO;
    else if (v == "off")
      c->readahead = HIO_READAHEAD_OFF;
    else if (v == "on")
      c->readahead = HIO_READAHEAD_ON;
    else
      return bad(uri, key, v, "auto, off or on");
  } else {
    return std::nullopt;
  }
  return "";
}

std::optional<std::string> set_file(const std::string& uri, const std::string& key, const std::string& v, Config* c) {
  if (key == "direct") {
    if (v != "0" && v != "1") return bad(uri, key, v, "0 or 1");
    c->direct = v == "1";
  } else if (key == "writes") {
    if (v != "posix" && v != "hybridio") return bad(uri, key, v, "posix or hybridio");
    c->hybridio_writes = v == "hybridio";
  } else if (key == "emulate") {
    // The engine checks the device when the file system is made.
    if (v.empty()) return bad(uri, key, v, "an emulated SSD, e.g. pcie4 or lat_us=10,iops=400000");
    c->emulate = v;
  } else if (key == "stats") {
    if (v.empty()) return bad(uri, key, v, "stderr or a file path");
    c->stats = v;
  } else {
    return std::nullopt;
  }
  return "";
}

// A key under its old spelling is told the new one.
std::string unknown_key(const std::string& uri, const std::string& key) {
  if (key == "wait" || key == "objective" || key == "background") {
    const char* now = key == "wait"        ? "completion"
                      : key == "objective" ? "adaptive_objective"
                                           : "background_completion";
    return "hybridio URI '" + uri + "': unknown key '" + key + "': it is spelled '" + now +
           "', as hio-bench's option and the fio engine's";
  }
  return "hybridio URI '" + uri + "': unknown key '" + key + "' (keys: " + kKeys + ")";
}

std::string set(const std::string& uri, const std::string& key, const std::string& v, Config* c) {
  for (auto setter : {set_completion, set_cache, set_file})
    if (std::optional<std::string> err = setter(uri, key, v, c)) return *err;
  return unknown_key(uri, key);
}

}  // namespace

std::string ParseUri(const std::string& uri, Config* out) {
  Config c;
  c.uri = uri;
  if (uri.compare(0, kScheme.size(), kScheme) != 0)
    return "not a hybridio URI: '" + uri + "' (expected hybridio://?key=value&...)";
  std::string rest = uri.substr(kScheme.size());
  if (!rest.empty() && rest[0] == '/') rest.erase(0, 1);  // hybridio:///?...
  if (!rest.empty()) {
    if (rest[0] != '?') return "hybridio URI '" + uri + "': expected '?' after hybridio://, found '" + rest + "'";
    rest.erase(0, 1);
    size_t pos = 0;
    while (pos <= rest.size()) {
      size_t amp = rest.find('&', pos);
      std::string kv = rest.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
      pos = amp == std::string::npos ? rest.size() + 1 : amp + 1;
      if (kv.empty()) continue;
      size_t eq = kv.find('=');
      if (eq == std::string::npos) return "hybridio URI '" + uri + "': '" + kv + "' is not key=value";
      if (std::string e = set(uri, kv.substr(0, eq), kv.substr(eq + 1), &c); !e.empty()) return e;
    }
  }
  if (c.cache_policy == HIO_CACHE_WRITE_BACK && c.cache_mb == 0)
    return "hybridio URI '" + uri + "': cache_policy=writeback needs a cache (cache_mb > 0)";
  // Writes past the cache would leave it stale (a new table may take a
  // deleted one's inode).
  if (c.cache_mb && !c.hybridio_writes)
    return "hybridio URI '" + uri +
           "': cache_mb needs writes=hybridio (writes=posix would bypass the cache and leave "
           "it stale); RocksDB's block cache caches by default";
  *out = c;
  return "";
}

}  // namespace hybridio::rocksdb
