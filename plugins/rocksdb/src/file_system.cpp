// SPDX-License-Identifier: MIT
// The hybridio FileSystem, its "hybridio://" factory and the public API.
#include <fcntl.h>
#include <rocksdb/utilities/object_registry.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "files.hpp"
#include "hybridio/rocksdb.h"

namespace hybridio::rocksdb {
namespace {

using rdb::FileOptions;
using rdb::IODebugContext;

IOStatus posix_error(const std::string& what, const std::string& path, int err) {
  return IOStatus::IOError(what + " " + path, std::strerror(err));
}

// Table reads go through hybridio; writes, sequential reads (WAL and
// MANIFEST replay) and metadata (create, rename, delete, list, lock, sizes)
// through RocksDB's default file system, unless writes=hybridio.
class HybridFileSystem : public rdb::FileSystemWrapper {
 public:
  explicit HybridFileSystem(std::shared_ptr<Core> core)
      : rdb::FileSystemWrapper(rdb::FileSystem::Default()), core_(std::move(core)) {}
  static const char* kClassName() { return "HybridioFileSystem"; }
  const char* Name() const override { return kClassName(); }
  Core& core() const { return *core_; }

  IOStatus NewSequentialFile(const std::string& f, const FileOptions& o, std::unique_ptr<rdb::FSSequentialFile>* r,
                             IODebugContext* dbg) override {
    if (!core_->config().hybridio_writes) return target()->NewSequentialFile(f, o, r, dbg);
    uint64_t size = 0;
    IOStatus s = target()->GetFileSize(f, o.io_options, &size, dbg);
    if (s.ok()) *r = hybridio::rocksdb::NewSequentialFile(core_, f, size, &s);
    if (!s.ok()) r->reset();
    return s;
  }

  IOStatus NewRandomAccessFile(const std::string& f, const FileOptions& o, std::unique_ptr<rdb::FSRandomAccessFile>* r,
                               IODebugContext* dbg) override {
    uint64_t size = 0;
    IOStatus s = target()->GetFileSize(f, o.io_options, &size, dbg);
    if (s.ok()) *r = hybridio::rocksdb::NewRandomAccessFile(core_, f, size, &s);
    if (!s.ok()) r->reset();
    return s;
  }

  IOStatus NewWritableFile(const std::string& f, const FileOptions& o, std::unique_ptr<rdb::FSWritableFile>* r,
                           IODebugContext* dbg) override {
    if (!core_->config().hybridio_writes) return target()->NewWritableFile(f, o, r, dbg);
    return Writable(f, o, O_TRUNC, r);
  }

  IOStatus ReopenWritableFile(const std::string& f, const FileOptions& o, std::unique_ptr<rdb::FSWritableFile>* r,
                              IODebugContext* dbg) override {
    if (!core_->config().hybridio_writes) return target()->ReopenWritableFile(f, o, r, dbg);
    return Writable(f, o, 0, r);
  }

  IOStatus ReuseWritableFile(const std::string& f, const std::string& old, const FileOptions& o,
                             std::unique_ptr<rdb::FSWritableFile>* r, IODebugContext* dbg) override {
    if (!core_->config().hybridio_writes) return target()->ReuseWritableFile(f, old, o, r, dbg);
    if (::rename(old.c_str(), f.c_str()) != 0) return posix_error("rename " + old + " to", f, errno);
    return Writable(f, o, O_TRUNC, r);
  }

  IOStatus Poll(std::vector<void*>& io_handles, size_t) override {
    for (void* h : io_handles) PollAsync(h, true).PermitUncheckedError();
    return IOStatus::OK();
  }

  IOStatus AbortIO(std::vector<void*>& io_handles) override {
    // A command cannot be taken back from the device: wait, and drop the result.
    for (void* h : io_handles) PollAsync(h, false).PermitUncheckedError();
    return IOStatus::OK();
  }

 private:
  IOStatus Writable(const std::string& f, const FileOptions& o, int trunc, std::unique_ptr<rdb::FSWritableFile>* r) {
    int fd = ::open(f.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | trunc, 0644);
    if (fd < 0) return posix_error("open", f, errno);
    off_t size = ::lseek(fd, 0, SEEK_END);
    ::close(fd);
    IOStatus s;
    *r = hybridio::rocksdb::NewWritableFile(core_, f, uint64_t(size), o, &s);
    if (!s.ok()) r->reset();
    return s;
  }

  std::shared_ptr<Core> core_;
};

std::string json_string(const std::string& v) {
  std::string o = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += c;
    }
  }
  return o + "\"";
}

}  // namespace

::rocksdb::Status NewFileSystem(const std::string& uri, std::shared_ptr<::rocksdb::FileSystem>* out) {
  Config c;
  std::string err = ParseUri(uri, &c);
  if (!err.empty()) return ::rocksdb::Status::InvalidArgument(err);
  auto core = Core::Create(c, &err);
  if (!core) return ::rocksdb::Status::InvalidArgument(err);
  *out = std::make_shared<HybridFileSystem>(std::move(core));
  return ::rocksdb::Status::OK();
}

void RegisterFileSystem() {
  static std::once_flag once;
  std::call_once(once, [] {
    rdb::ObjectLibrary::Default()->AddFactory<rdb::FileSystem>(
        rdb::ObjectLibrary::PatternEntry("hybridio", true).AddSeparator("://", false),
        [](const std::string& uri, std::unique_ptr<rdb::FileSystem>* guard, std::string* errmsg) -> rdb::FileSystem* {
          Config c;
          std::string err = ParseUri(uri, &c);
          std::shared_ptr<Core> core = err.empty() ? Core::Create(c, &err) : nullptr;
          if (!core) {
            *errmsg = err;
            return nullptr;
          }
          guard->reset(new HybridFileSystem(std::move(core)));
          return guard->get();
        });
  });
}

bool GetStats(const ::rocksdb::FileSystem* fs, Stats* out) {
  const auto* h = fs ? fs->CheckedCast<HybridFileSystem>() : nullptr;
  if (!h) return false;
  *out = h->core().Collect();
  return true;
}

std::string StatsJson(const Stats& s) {
  double total = s.mode_ios[0] + s.mode_ios[1] + s.mode_ios[2];
  auto share = [&](int m) { return total > 0 ? s.mode_ios[m] / total : 0.0; };
  uint64_t lookups = s.cache_hits + s.cache_misses;
  char b[1024];
  std::snprintf(
      b, sizeof b,
      "\"reads\": %llu, \"read_bytes\": %llu, \"multi_reads\": %llu, \"async_reads\": %llu, "
      "\"writes\": %llu, \"write_bytes\": %llu, \"syncs\": %llu, "
      "\"cache\": {\"hits\": %llu, \"misses\": %llu, \"hit_ratio\": %.4f}, "
      "\"queues\": %llu, \"background_queues\": %llu, \"completed\": %llu, \"sleep_ns\": %llu, \"spin_ns\": %llu, "
      "\"wait_share\": {\"interrupt\": %.4f, \"poll\": %.4f, \"hybrid\": %.4f}}",
      (unsigned long long)s.reads, (unsigned long long)s.read_bytes, (unsigned long long)s.multi_reads,
      (unsigned long long)s.async_reads, (unsigned long long)s.writes, (unsigned long long)s.write_bytes,
      (unsigned long long)s.syncs, (unsigned long long)s.cache_hits, (unsigned long long)s.cache_misses,
      lookups ? double(s.cache_hits) / double(lookups) : 0.0, (unsigned long long)s.queues,
      (unsigned long long)s.background_queues, (unsigned long long)s.completed, (unsigned long long)s.sleep_ns,
      (unsigned long long)s.spin_ns, share(0), share(1), share(2));
  return "{\"uri\": " + json_string(s.uri) + ", " + b;
}

}  // namespace hybridio::rocksdb

extern "C" void hybridio_rocksdb_register(void) { hybridio::rocksdb::RegisterFileSystem(); }

namespace {
// Loading the library (LD_PRELOAD, or linking it) is enough to use the URI.
const int registered = (hybridio::rocksdb::RegisterFileSystem(), 0);
}  // namespace
