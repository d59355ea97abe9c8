// SPDX-License-Identifier: MIT
// One file's hybridio handles (one per thread that touches it) and the
// reads and writes on them: page alignment, end of file, batches.
#pragma once

#include <rocksdb/io_status.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core.hpp"

namespace hybridio::rocksdb {

using ::rocksdb::IOStatus;

// A command on its way; the tag of its hio_io points to it, so whichever
// call reaps the handle completes it.
struct Op {
  hio_io io{};
  int32_t res = 0;
  bool done = false;
};

// A read of [offset, offset + len) of the file, widened to whole pages when
// the handle needs them, through a bounce buffer when the caller's is unfit.
struct PageRead {
  Op op;
  uint64_t offset = 0;
  size_t len = 0;
  char* dst = nullptr;
  char* bounce = nullptr;  // where the device's data lands, if not in dst
  std::unique_ptr<char, void (*)(void*)> owned{nullptr, &std::free};
  size_t skip = 0;  // bytes of the widened read before offset
};

class FileIo {
 public:
  enum class Mode { kRead, kWrite };
  // direct: O_DIRECT for this file's handles.
  FileIo(std::shared_ptr<Core> core, std::string path, Mode mode, bool direct);
  ~FileIo();  // closes the handles; errors were reported by Close()

  const std::string& path() const { return path_; }
  Core& core() { return *core_; }
  // What the handle needs offsets, lengths and buffers aligned to (1: none).
  uint32_t align() const { return align_; }

  // Opens the calling thread's handle now, so that an unusable file (or
  // O_DIRECT where the file system has none) fails at open, and learns the
  // alignment. Called once, before the file is shared between threads.
  IOStatus Open();
  // The calling thread's handle on the file, and that thread's queue.
  IOStatus Handle(hio_handle** out, ThreadQueue** tq = nullptr);

  // Reads up to len bytes at offset (fewer at the end of a file of `size`
  // bytes) into dst; *got: the bytes read.
  IOStatus Read(uint64_t size, uint64_t offset, size_t len, char* dst, size_t* got);
  // Prepares, submits and completes reads; each gets its own status.
  void ReadBatch(uint64_t size, std::vector<PageRead*>& reads, std::vector<IOStatus>* st);
  // false: nothing to read (past the end). A bounce buffer is r's own, or
  // with `reuse` the calling thread's (for a read finished before the next).
  bool Prepare(uint64_t size, PageRead* r, bool reuse = false);
  IOStatus Submit(hio_handle* h, Op* op);
  IOStatus WaitFor(hio_handle* h, Op* op);
  size_t Finish(const PageRead& r, Counters& n);  // copies out and counts; the bytes read

  // Writes [offset, offset + len) from an aligned buffer, in one or more commands.
  IOStatus Write(const char* buf, size_t len, uint64_t offset);
  // Dirty cache pages to the device, then the device's own flush.
  IOStatus Sync();
  // Closes every handle; the first write-back error.
  IOStatus Close();

 private:
  IOStatus Error(const char* what, uint64_t offset, int err);

  std::shared_ptr<Core> core_;
  std::atomic<uint64_t> id_;  // unique, renewed at Close: keys the threads' handle caches
  std::string path_;
  Mode mode_;
  bool direct_;
  uint32_t align_;
  struct Bound {
    std::shared_ptr<ThreadQueue> tq;
    hio_handle* h;
  };
  std::mutex mu_;
  std::vector<Bound> handles_;
};

}  // namespace hybridio::rocksdb
