// SPDX-License-Identifier: MIT
// Real files under an emulated SSD's timing. The data moves at submission,
// synchronously, on the file (as the emulated SSD's own memcpy does), and
// each completion is held until the emulated device would have finished the
// command. io_uring is not used for the data: on the in-memory file systems
// this is meant for (tmpfs), it hands every command to a kernel worker
// thread, a cost and a second thread on the core that an NVMe read does not
// bring. One EmuTiming may serve many queues, so the device's channels and
// IOPS ceiling are shared as on a real SSD.
#pragma once
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "emu/held_completions.hpp"
#include "emu/timing.hpp"

namespace hio {

class TimedBackend final : public Backend {
 public:
  // files: opens and closes the targets, and gives their descriptors.
  // nullptr with the message set if the timer cannot be made.
  static std::unique_ptr<TimedBackend> create(std::unique_ptr<Backend> files, std::shared_ptr<EmuTiming> timing);

  const char* name() const override { return files_->name(); }
  int open(const std::string& spec, const OpenOptions& opts, TargetInfo* info) override {
    return files_->open(spec, opts, info);
  }
  void close(int target) override { files_->close(target); }
  // Not a plain file: its completions must wait for the model.
  int fd(int) const override { return -1; }
  int register_buffer(void*, size_t) override { return 0; }
  void prepare(const Command& c) override { pending_.push_back(c); }
  int submit() override;
  unsigned peek(Cqe* out, unsigned max) override;
  int wait(Cqe* out, unsigned max) override;

 private:
  TimedBackend(std::unique_ptr<Backend> files, std::shared_ptr<EmuTiming> timing)
      : files_(std::move(files)), timing_(std::move(timing)) {}
  int32_t execute(const Command& c) const;  // bytes or -errno
  std::unique_ptr<Backend> files_;
  std::shared_ptr<EmuTiming> timing_;
  std::vector<Command> pending_;
  std::unique_ptr<HeldCompletions> held_;  // done on the file, not yet on the model
};

}  // namespace hio
