// SPDX-License-Identifier: MIT
// A queue's view of emulated SSDs: commands wait in a deadline heap; a
// poller sees a completion by comparing the clock with the head deadline, a
// sleeper is woken by a kernel timer (held_completions.hpp), so no thread of
// ours burns CPU to deliver completions.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "emu/device.hpp"
#include "emu/held_completions.hpp"

namespace hio {

using EmuDeviceProvider = std::function<std::shared_ptr<EmuDevice>(const EmuConfig&, uint64_t default_size)>;

class EmuBackend final : public Backend {
 public:
  // Returns nullptr with the message set if the timer cannot be made.
  static std::unique_ptr<EmuBackend> create(EmuDeviceProvider provider);

  const char* name() const override { return "emu"; }
  int open(const std::string& spec, const OpenOptions& opts, TargetInfo* info) override;
  int register_buffer(void*, size_t) override { return 0; }
  void prepare(const Command& c) override { pending_.push_back(c); }
  int submit() override;
  unsigned peek(Cqe* out, unsigned max) override;
  int wait(Cqe* out, unsigned max) override;

 private:
  explicit EmuBackend(EmuDeviceProvider provider) : provider_(std::move(provider)) {}
  EmuDeviceProvider provider_;
  std::vector<std::shared_ptr<EmuDevice>> devices_;
  std::vector<Command> pending_;
  std::unique_ptr<HeldCompletions> held_;
};

}  // namespace hio
