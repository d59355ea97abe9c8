// SPDX-License-Identifier: MIT
// What the kernel says about a file or block device: size, O_DIRECT
// alignment, and whether its block device has poll queues.
#pragma once
#include <cstdint>
#include <string>

namespace hio {

struct FileProbe {
  uint64_t size = 0;
  uint32_t offset_align = 1;
  uint32_t mem_align = 1;
  bool block_device = false;
};

// Fills p for an open fd; returns 0 or -errno with the message set.
int probe_file(int fd, const std::string& path, bool direct, FileProbe* p);

// 0 if the block device behind fd has kernel poll queues enabled, else
// -EOPNOTSUPP with a message saying what was found and how to enable them.
int check_poll_queues(int fd, const std::string& path, const char* mode);

}  // namespace hio
