// SPDX-License-Identifier: MIT
#include "files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace hybridio::rocksdb {
namespace {

using rdb::IODebugContext;
using rdb::IOOptions;
using rdb::Slice;

class SequentialFile : public rdb::FSSequentialFile {
 public:
  SequentialFile(const std::shared_ptr<Core>& core, const std::string& path, uint64_t size)
      : io_(core, path, FileIo::Mode::kRead, core->config().direct), size_(size) {}
  IOStatus Open() { return io_.Open(); }

  IOStatus Read(size_t n, const IOOptions&, Slice* result, char* scratch, IODebugContext*) override {
    size_t got = 0;
    IOStatus s = io_.Read(size_, pos_, n, scratch, &got);
    pos_ += got;
    *result = Slice(scratch, got);
    return s;
  }
  IOStatus PositionedRead(uint64_t offset, size_t n, const IOOptions&, Slice* result, char* scratch,
                          IODebugContext*) override {
    size_t got = 0;
    IOStatus s = io_.Read(size_, offset, n, scratch, &got);
    *result = Slice(scratch, got);
    return s;
  }
  IOStatus Skip(uint64_t n) override {
    pos_ = std::min(size_, pos_ + n);
    return IOStatus::OK();
  }
  // Where the handle needs aligned reads (O_DIRECT or the cache), RocksDB is
  // told so and hands aligned buffers: no bounce copy.
  bool use_direct_io() const override { return io_.align() > 1; }
  size_t GetRequiredBufferAlignment() const override { return io_.align() > 1 ? io_.align() : 4096; }
  IOStatus InvalidateCache(size_t, size_t) override { return IOStatus::OK(); }

 private:
  FileIo io_;
  uint64_t size_;  // at open: RocksDB reads logs and manifests once they are written
  uint64_t pos_ = 0;
};

struct AsyncRead {
  PageRead r;
  rdb::FSReadRequest req;  // a copy: the caller's may be gone before Poll
  std::function<void(const rdb::FSReadRequest&, void*)> cb;
  void* cb_arg = nullptr;
  FileIo* io = nullptr;
  hio_handle* h = nullptr;
  ThreadQueue* tq = nullptr;  // the reading thread's: counts the read
  bool finished = false;
  ~AsyncRead() {
    // RocksDB frees a request only after Poll or AbortIO; a buffer the
    // device may still write into must not go first.
    if (!finished && io) io->WaitFor(h, &r.op).PermitUncheckedError();
  }
};

class RandomAccessFile : public rdb::FSRandomAccessFile {
 public:
  RandomAccessFile(const std::shared_ptr<Core>& core, const std::string& path, uint64_t size)
      : io_(core, path, FileIo::Mode::kRead, core->config().direct), size_(size) {}
  IOStatus Open() { return io_.Open(); }

  IOStatus Read(uint64_t offset, size_t n, const IOOptions&, Slice* result, char* scratch,
                IODebugContext*) const override {
    size_t got = 0;
    IOStatus s = io_.Read(size_, offset, n, scratch, &got);
    *result = Slice(scratch, got);
    return s;
  }

  IOStatus MultiRead(rdb::FSReadRequest* reqs, size_t num, const IOOptions&, IODebugContext*) override {
    std::vector<PageRead> rs(num);
    std::vector<PageRead*> ptrs(num);
    for (size_t i = 0; i < num; i++) {
      rs[i].offset = reqs[i].offset;
      rs[i].len = reqs[i].len;
      rs[i].dst = reqs[i].scratch;
      ptrs[i] = &rs[i];
    }
    std::vector<IOStatus> st;
    io_.ReadBatch(size_, ptrs, &st);
    for (size_t i = 0; i < num; i++) {
      reqs[i].status = st[i];
      reqs[i].result = Slice(reqs[i].scratch, st[i].ok() ? rs[i].len : 0);
    }
    return IOStatus::OK();
  }

  IOStatus ReadAsync(rdb::FSReadRequest& req, const IOOptions&,
                     std::function<void(const rdb::FSReadRequest&, void*)> cb, void* cb_arg, void** io_handle,
                     rdb::IOHandleDeleter* del_fn, IODebugContext*) override {
    auto a = std::make_unique<AsyncRead>();
    a->r.offset = req.offset;
    a->r.len = req.len;
    a->r.dst = req.scratch;
    a->req = req;
    a->cb = std::move(cb);
    a->cb_arg = cb_arg;
    IOStatus s;
    if (io_.Prepare(size_, &a->r)) {
      s = io_.Handle(&a->h, &a->tq);
      if (s.ok()) Counters::add(a->tq->counters.async_reads, 1);
      if (s.ok()) s = io_.Submit(a->h, &a->r.op);
      if (s.ok()) a->io = &io_;
    }
    if (!a->io) {  // nothing to read, or it failed: complete at once
      req.status = s;
      req.result = Slice(req.scratch, 0);
      a->finished = true;
      a->cb(req, a->cb_arg);
      return s;
    }
    *io_handle = a.release();
    *del_fn = [](void* p) { delete static_cast<AsyncRead*>(p); };
    return IOStatus::OK();
  }

  IOStatus Prefetch(uint64_t, size_t, const IOOptions&, IODebugContext*) override {
    return IOStatus::NotSupported("Prefetch");  // RocksDB's prefetch buffer reads ahead instead
  }
  // Where the handle needs aligned reads (O_DIRECT or the cache), RocksDB is
  // told so and hands aligned buffers: no bounce copy.
  bool use_direct_io() const override { return io_.align() > 1; }
  size_t GetRequiredBufferAlignment() const override { return io_.align() > 1 ? io_.align() : 4096; }
  IOStatus InvalidateCache(size_t, size_t) override { return IOStatus::OK(); }

 private:
  mutable FileIo io_;
  uint64_t size_;  // RocksDB reads tables and blobs once they are written
};

// Written through the page cache, as RocksDB's own files are, unless RocksDB
// asks for direct writes (use_direct_io_for_flush_and_compaction): a Flush
// must survive the process, and a WAL record per page written to the device
// would make every Put wait for the disk.
//
// Appends are gathered in a page-aligned buffer that Flush writes out. Where
// the handle needs whole blocks (O_DIRECT: the device's; the block cache:
// pages), the file's last, partial block is written whole (zero-padded) and
// again at the next Flush, so the file may end in up to a block of zeros
// until Close cuts it to its size. RocksDB's log reader treats such zeros
// as the end of the log.
class WritableFile : public rdb::FSWritableFile {
 public:
  static constexpr size_t kBuffer = 1 << 20;

  WritableFile(std::shared_ptr<Core> core, const std::string& path, const rdb::FileOptions& opts)
      : rdb::FSWritableFile(opts), io_(std::move(core), path, FileIo::Mode::kWrite, opts.use_direct_writes) {
    buf_.reset(static_cast<char*>(std::aligned_alloc(4096, kBuffer)));
  }
  ~WritableFile() override { Close(IOOptions(), nullptr).PermitUncheckedError(); }

  IOStatus Open() { return io_.Open(); }

  // Continues an existing file of `size` bytes: its partial last block is rewritten whole.
  IOStatus Resume(uint64_t size) {
    base_ = size / io_.align() * io_.align();
    fill_ = size_t(size - base_);
    flushed_ = fill_;
    if (!fill_) return IOStatus::OK();
    int fd = ::open(io_.path().c_str(), O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : ::pread(fd, buf_.get(), fill_, off_t(base_));
    int err = errno;
    if (fd >= 0) ::close(fd);
    if (n != ssize_t(fill_))
      return IOStatus::IOError(io_.path(), std::string("reading the last block to append after it: ") +
                                               (n < 0 ? std::strerror(err) : "short read"));
    return IOStatus::OK();
  }

  using rdb::FSWritableFile::Append;
  IOStatus Append(const Slice& data, const IOOptions&, IODebugContext*) override {
    const char* p = data.data();
    size_t left = data.size();
    while (left) {
      size_t k = std::min(left, kBuffer - fill_);
      std::memcpy(buf_.get() + fill_, p, k);
      fill_ += k;
      p += k;
      left -= k;
      if (fill_ == kBuffer)
        if (IOStatus s = WriteOut(); !s.ok()) return s;
    }
    return IOStatus::OK();
  }

  IOStatus Flush(const IOOptions&, IODebugContext*) override { return WriteOut(); }

  IOStatus Sync(const IOOptions&, IODebugContext*) override {
    IOStatus s = WriteOut();
    if (s.ok()) s = io_.Sync();
    if (s.ok()) synced_ = true;
    return s;
  }

  IOStatus Truncate(uint64_t size, const IOOptions&, IODebugContext*) override {
    IOStatus s = WriteOut();
    if (s.ok() && io_.core().config().cache_policy == HIO_CACHE_WRITE_BACK) s = io_.Sync();
    if (s.ok() && ::truncate(io_.path().c_str(), off_t(size)) != 0)
      return IOStatus::IOError(io_.path(), std::string("truncate: ") + std::strerror(errno));
    return s.ok() ? Resume(size) : s;
  }

  IOStatus Close(const IOOptions&, IODebugContext*) override {
    if (closed_) return IOStatus::OK();
    closed_ = true;
    uint64_t size = base_ + fill_;
    IOStatus s = WriteOut();
    bool padded = size % io_.align() != 0;
    // The cut to the real size is made durable if the padded size was.
    if (s.ok() && padded && synced_) s = io_.Sync();
    IOStatus c = io_.Close();  // write-back pages reach the file here
    if (s.ok()) s = c;
    if (s.ok() && padded) s = Cut(size, synced_);
    return s;
  }

  uint64_t GetFileSize(const IOOptions&, IODebugContext*) override { return base_ + fill_; }
  bool IsSyncThreadSafe() const override { return false; }

 private:
  // Writes what Append gathered since the last write, padded to whole blocks.
  IOStatus WriteOut() {
    if (fill_ == flushed_) return IOStatus::OK();
    size_t a = io_.align();
    size_t whole = fill_ / a * a, len = (fill_ + a - 1) / a * a;
    std::memset(buf_.get() + fill_, 0, len - fill_);
    // Blocks written before and unchanged since are not written again.
    size_t from = flushed_ / a * a;
    IOStatus s = io_.Write(buf_.get() + from, len - from, base_ + from);
    if (!s.ok()) return s;
    std::memmove(buf_.get(), buf_.get() + whole, fill_ - whole);
    base_ += whole;
    fill_ -= whole;
    flushed_ = fill_;
    return IOStatus::OK();
  }

  IOStatus Cut(uint64_t size, bool durable) {
    int fd = ::open(io_.path().c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ::ftruncate(fd, off_t(size)) != 0 || (durable && ::fdatasync(fd) != 0)) {
      int err = errno;
      if (fd >= 0) ::close(fd);
      return IOStatus::IOError(
          io_.path(), std::string("cutting the file to ") + std::to_string(size) + " bytes: " + std::strerror(err));
    }
    ::close(fd);
    return IOStatus::OK();
  }

  FileIo io_;
  std::unique_ptr<char, void (*)(void*)> buf_{nullptr, &std::free};
  uint64_t base_ = 0;   // the file offset of buf_[0], block-aligned
  size_t fill_ = 0;     // bytes in buf_
  size_t flushed_ = 0;  // of which written
  bool synced_ = false, closed_ = false;
};

}  // namespace

std::unique_ptr<rdb::FSSequentialFile> NewSequentialFile(const std::shared_ptr<Core>& core, const std::string& path,
                                                         uint64_t size, IOStatus* s) {
  auto f = std::make_unique<SequentialFile>(core, path, size);
  *s = f->Open();
  return f;
}

std::unique_ptr<rdb::FSRandomAccessFile> NewRandomAccessFile(const std::shared_ptr<Core>& core, const std::string& path,
                                                             uint64_t size, IOStatus* s) {
  auto f = std::make_unique<RandomAccessFile>(core, path, size);
  *s = f->Open();
  return f;
}

std::unique_ptr<rdb::FSWritableFile> NewWritableFile(std::shared_ptr<Core> core, const std::string& path, uint64_t size,
                                                     const rdb::FileOptions& opts, IOStatus* s) {
  auto f = std::make_unique<WritableFile>(std::move(core), path, opts);
  *s = f->Open();
  if (s->ok()) *s = f->Resume(size);
  return f;
}

IOStatus PollAsync(void* io_handle, bool call_back) {
  auto* a = static_cast<AsyncRead*>(io_handle);
  if (a->finished) return IOStatus::OK();
  IOStatus s = a->io->WaitFor(a->h, &a->r.op);
  a->finished = true;
  a->req.status = s;
  a->req.result = Slice(a->req.scratch, s.ok() ? a->io->Finish(a->r, a->tq->counters) : 0);
  if (call_back) a->cb(a->req, a->cb_arg);
  return IOStatus::OK();
}

}  // namespace hybridio::rocksdb
