// SPDX-License-Identifier: MIT
#include "model/sim_signals.hpp"

namespace hio::sim {

SimSignals::SimSignals(Machine& m, ReadCosts costs, WakeCost wake) : m_(m), costs_(costs), wake_(wake) {}

// The simulation is over: the tasks' memberships end without leaving a
// governor that may already be gone.
SimSignals::~SimSignals() {
  for (auto& m : members_)
    if (m) m->gov = nullptr;
}

uint64_t SimSignals::now_ns() {
  pending_ += costs_.clock_ns;
  reads_++;
  return m_.now() + pending_;
}

uint64_t SimSignals::thread_cpu_ns() {
  pending_ += costs_.thread_clock_ns;
  reads_++;
  return m_.task_cpu_ns(*current_) + pending_;
}

uint64_t SimSignals::thread_cpu_ns(pid_t tid) {
  pending_ += costs_.thread_clock_ns;
  reads_++;
  size_t i = size_t(tid - 1);
  if (tid <= 0 || i >= m_.tasks().size()) return 0;
  const Task& t = *m_.tasks()[i];
  if (t.state == Task::exited) return 0;
  return m_.task_cpu_ns(t) + (&t == current_ ? pending_ : 0);
}

bool SimSignals::idle_ns(int cpu, uint64_t* out) {
  if (cpu < 0 || cpu >= m_.ncores()) return false;
  pending_ += costs_.idle_read_ns * Time(costs_.idle_states);
  reads_ += uint64_t(costs_.idle_states);
  *out = m_.idle_ns(cpu);
  return true;
}

Membership& SimSignals::membership() {
  size_t i = size_t(current_->id);
  if (members_.size() <= i) members_.resize(i + 1);
  if (!members_[i]) members_[i] = std::make_unique<Membership>();
  return *members_[i];
}

}  // namespace hio::sim
