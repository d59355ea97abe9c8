// SPDX-License-Identifier: MIT
#include "backend/file_probe.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "util/error.hpp"

#ifndef STATX_DIOALIGN
#define STATX_DIOALIGN 0x00002000U
#endif

namespace hio {

int probe_file(int fd, const std::string& path, bool direct, FileProbe* p) {
  struct statx sx {};
  if (statx(fd, "", AT_EMPTY_PATH, STATX_SIZE | STATX_TYPE | STATX_DIOALIGN, &sx) != 0)
    return failf(errno, "stat %s: %s", path.c_str(), errno_text(errno).c_str());
  p->block_device = S_ISBLK(sx.stx_mode);
  if (p->block_device) {
    uint64_t bytes = 0;
    if (ioctl(fd, BLKGETSIZE64, &bytes) != 0)
      return failf(errno, "size of block device %s: %s", path.c_str(), errno_text(errno).c_str());
    p->size = bytes;
  } else if (S_ISREG(sx.stx_mode)) {
    p->size = sx.stx_size;
  } else {
    return failf(EINVAL, "%s is neither a regular file nor a block device", path.c_str());
  }
  if (!direct) return 0;
  if ((sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align) {
    p->offset_align = sx.stx_dio_offset_align;
    p->mem_align = sx.stx_dio_mem_align;
  } else if (p->block_device) {
    int lbs = 512;
    ioctl(fd, BLKSSZGET, &lbs);
    p->offset_align = p->mem_align = uint32_t(lbs);
  } else {
    // Older kernels do not report O_DIRECT alignment: the logical block
    // size is the safe assumption.
    p->offset_align = p->mem_align = 512;
  }
  return 0;
}

int check_poll_queues(int fd, const std::string& path, const char* mode) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return failf(errno, "stat %s: %s", path.c_str(), errno_text(errno).c_str());
  dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
  std::string base = "/sys/dev/block/" + std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
  // A partition's queue attributes live on its parent disk.
  for (const std::string& f : {base + "/queue/io_poll", base + "/../queue/io_poll"}) {
    std::ifstream in(f);
    int v = -1;
    if (in >> v) {
      if (v == 1) return 0;
      return failf(EOPNOTSUPP,
                   "wait mode '%s' needs a device with kernel poll queues, but %s is on a device "
                   "without them (%s = 0; NVMe: nvme.poll_queues=N, virtio-blk: "
                   "virtio_blk.poll_queues=N); use poll or hybrid instead",
                   mode, path.c_str(), f.c_str());
    }
  }
  return failf(EOPNOTSUPP,
               "wait mode '%s' needs a block device with kernel poll queues, and %s has none "
               "behind it (no %s/queue/io_poll); use poll or hybrid instead",
               mode, path.c_str(), base.c_str());
}

}  // namespace hio
