// SPDX-License-Identifier: MIT
#include "core.hpp"

#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hybridio::rocksdb {
namespace {

void add_queue(const ThreadQueue& tq, Stats* s) {
  hio_queue* q = tq.q;
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  if (hio_queue_stats_get(q, &st) < 0) return;
  s->queues++;
  // The wait shares are the application threads': theirs is the strategy the URI chose.
  if (tq.background) {
    s->background_queues++;
    return;
  }
  s->completed += st.completed;
  s->sleep_ns += st.sleep_ns;
  s->spin_ns += st.spin_ns;
  hio_strategy strat;
  hio_strategy_init(&strat, sizeof strat);
  hio_queue_strategy_get(q, &strat);
  double ns[3] = {0, 0, 0};
  if (strat.mode == HIO_WAIT_ADAPTIVE) {
    for (int m = 0; m < 3; m++) ns[m] = double(st.adaptive_ns[m]);
  } else if (strat.mode <= HIO_WAIT_HYBRID) {
    ns[strat.mode] = double(st.wall_ns);
  }
  // A queue's I/O is counted under its modes' time shares: a thread that
  // opened the database and then idled must not weigh as much as the one
  // that did the reads.
  double total = ns[0] + ns[1] + ns[2];
  for (int m = 0; m < 3; m++) {
    s->mode_ns[m] += uint64_t(ns[m]);
    if (total > 0) s->mode_ios[m] += ns[m] / total * double(st.completed);
  }
}

// Cores whose statistics are written at exit: a process may end without
// destroying its file system (db_bench keeps it until exit).
std::mutex exit_mu;
std::vector<std::weak_ptr<Core>>* exit_list = nullptr;

void report_at_exit() {
  std::vector<std::weak_ptr<Core>> cores;
  {
    std::lock_guard<std::mutex> g(exit_mu);
    if (exit_list) cores = *exit_list;
  }
  for (auto& w : cores)
    if (auto c = w.lock()) c->Report();
}

}  // namespace

void Counters::add_to(Stats* s) const {
  s->reads += reads.load(std::memory_order_relaxed);
  s->read_bytes += read_bytes.load(std::memory_order_relaxed);
  s->multi_reads += multi_reads.load(std::memory_order_relaxed);
  s->async_reads += async_reads.load(std::memory_order_relaxed);
  s->writes += writes.load(std::memory_order_relaxed);
  s->write_bytes += write_bytes.load(std::memory_order_relaxed);
  s->syncs += syncs.load(std::memory_order_relaxed);
}

ThreadQueue::~ThreadQueue() {
  core->Retire(*this);
  hio_queue_destroy(q);
}

std::shared_ptr<Core> Core::Create(const Config& cfg, std::string* err) {
  std::shared_ptr<Core> c(new Core(cfg));
  if (hio_engine_create(&c->engine_) < 0) {
    *err = std::string("hybridio: engine: ") + hio_last_error();
    return nullptr;
  }
  if (!cfg.emulate.empty() && hio_engine_emulate(c->engine_, cfg.emulate.c_str()) < 0) {
    *err = "hybridio URI '" + cfg.uri + "': bad value '" + cfg.emulate + "' for emulate (" + hio_last_error() + ")";
    return nullptr;
  }
  if (cfg.cache_mb && hio_cache_create(cfg.cache_mb << 20, cfg.cache_policy, &c->cache_) < 0) {
    *err = std::string("hybridio: block cache of ") + std::to_string(cfg.cache_mb) + " MiB: " + hio_last_error();
    return nullptr;
  }
  if (!cfg.stats.empty()) {
    std::lock_guard<std::mutex> g(exit_mu);
    if (!exit_list) {
      exit_list = new std::vector<std::weak_ptr<Core>>();
      std::atexit(report_at_exit);
    }
    exit_list->push_back(c);
  }
  return c;
}

Core::~Core() {
  Report();
  // Handles and thread queues hold the core: none is left.
  if (cache_) hio_cache_destroy(cache_);
  if (engine_) hio_engine_destroy(engine_);
}

std::shared_ptr<ThreadQueue> Core::ThisThreadQueue(std::string* err) {
  // Per thread, the queues of each core it used; they go when the thread ends
  // and the last handle on them closes.
  thread_local std::vector<std::shared_ptr<ThreadQueue>> mine;
  for (auto& tq : mine)
    if (tq->core.get() == this) return tq;
  hio_queue_opts o{};
  o.struct_size = sizeof o;
  o.depth = cfg_.depth;
  // RocksDB names its thread pools' threads rocksdb:low, rocksdb:high and
  // rocksdb:bottom: their flushes and compactions want throughput, and on a
  // shared core a poller among them takes the CPU from the application's reads.
  char name[16] = "";
  pthread_getname_np(pthread_self(), name, sizeof name);
  bool background = std::strncmp(name, "rocksdb:", 8) == 0;
  o.strategy.mode = background ? cfg_.background : cfg_.wait;
  o.strategy.objective = cfg_.objective;
  hio_queue* q = nullptr;
  if (hio_queue_create(engine_, &o, &q) < 0) {
    *err = std::string("hybridio: queue: ") + hio_last_error();
    return nullptr;
  }
  auto tq = std::make_shared<ThreadQueue>(shared_from_this(), q, background);
  mine.push_back(tq);
  std::lock_guard<std::mutex> g(mu_);
  live_.push_back(tq);
  return tq;
}

void Core::Retire(const ThreadQueue& tq) {
  std::lock_guard<std::mutex> g(mu_);
  add_queue(tq, &retired_);
  tq.counters.add_to(&retired_);
}

Stats Core::Collect() {
  Stats s;
  std::vector<std::shared_ptr<ThreadQueue>> live;
  {
    std::lock_guard<std::mutex> g(mu_);
    s = retired_;
    for (auto it = live_.begin(); it != live_.end();) {
      if (auto tq = it->lock()) {
        live.push_back(std::move(tq));
        ++it;
      } else {
        it = live_.erase(it);
      }
    }
  }
  for (auto& tq : live) {
    add_queue(*tq, &s);
    tq->counters.add_to(&s);
  }
  s.uri = cfg_.uri;
  if (cache_) {
    hio_cache_stats cs{};
    cs.struct_size = sizeof cs;
    hio_cache_stats_get(cache_, &cs);
    s.cache_hits = cs.hits;
    s.cache_misses = cs.misses;
  }
  return s;
}

void Core::Report() {
  if (cfg_.stats.empty() || reported_.exchange(true)) return;
  std::string json = StatsJson(Collect()) + "\n";
  if (cfg_.stats == "stderr") {
    std::fputs(("hybridio: " + json).c_str(), stderr);
    return;
  }
  FILE* f = std::fopen(cfg_.stats.c_str(), "w");
  if (!f) {
    std::perror(("hybridio: stats file " + cfg_.stats).c_str());
    return;
  }
  std::fputs(json.c_str(), f);
  std::fclose(f);
}

}  // namespace hybridio::rocksdb
