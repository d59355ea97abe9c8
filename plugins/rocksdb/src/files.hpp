// SPDX-License-Identifier: MIT
// RocksDB's file types on hybridio: sequential and random-access readers,
// and an appending writer.
#pragma once

#include <rocksdb/file_system.h>

#include <memory>
#include <string>

#include "file_io.hpp"

namespace hybridio::rocksdb {

namespace rdb = ::rocksdb;

std::unique_ptr<rdb::FSSequentialFile> NewSequentialFile(const std::shared_ptr<Core>& core, const std::string& path,
                                                         uint64_t size, IOStatus* s);
std::unique_ptr<rdb::FSRandomAccessFile> NewRandomAccessFile(const std::shared_ptr<Core>& core, const std::string& path,
                                                             uint64_t size, IOStatus* s);
// Each opens the calling thread's handle at once; *s says if that failed.
// A writer appends from `size` on (0 for a new file).
std::unique_ptr<rdb::FSWritableFile> NewWritableFile(std::shared_ptr<Core> core, const std::string& path, uint64_t size,
                                                     const rdb::FileOptions& opts, IOStatus* s);

// ReadAsync's io_handle: FileSystem::Poll and AbortIO complete it.
IOStatus PollAsync(void* io_handle, bool call_back);

}  // namespace hybridio::rocksdb
