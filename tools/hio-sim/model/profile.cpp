// SPDX-License-Identifier: MIT
#include "model/profile.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace hio::sim {
namespace {

using nlohmann::json;

struct Reader {
  const json& j;
  std::string where;
  const json& need(const char* k) const {
    if (!j.contains(k)) throw std::invalid_argument(where + ": missing field '" + k + "'");
    return j.at(k);
  }
  double num(const char* k, double def, bool required = false, double lo = 0, double hi = 1e15) const {
    if (!j.contains(k)) {
      if (required) throw std::invalid_argument(where + ": missing field '" + k + "'");
      return def;
    }
    const json& v = j.at(k);
    if (!v.is_number()) throw std::invalid_argument(where + ": field '" + k + "' is not a number");
    double d = v.get<double>();
    if (d < lo || d > hi)
      throw std::invalid_argument(where + ": field '" + k + "' = " + std::to_string(d) + " is outside " +
                                  std::to_string(lo) + ".." + std::to_string(hi));
    return d;
  }
  Reader at(const char* k) const { return Reader{need(k), where + "." + k}; }
};

SleepCost sleep_cost(const Reader& r) {
  SleepCost c;
  c.block_ns = Time(r.num("block_ns", 0, true, 0, 1e9));
  c.unblock_ns = Time(r.num("unblock_ns", 0, false, 0, 1e9));
  c.wake_ns = Time(r.num("wake_ns", 0, true, 0, 1e9));
  return c;
}

json sleep_json(const SleepCost& c) {
  return {{"block_ns", c.block_ns}, {"unblock_ns", c.unblock_ns}, {"wake_ns", c.wake_ns}};
}

Quantiles quantiles(const json& v, const std::string& where) {
  if (v.is_number()) return Quantiles::constant(v.get<double>());
  if (!v.is_array() || v.empty()) throw std::invalid_argument(where + ": expected a number or a list of quantiles");
  std::vector<double> q;
  for (const json& x : v) {
    if (!x.is_number() || x.get<double>() < 0) throw std::invalid_argument(where + ": a quantile is not a number >= 0");
    q.push_back(x.get<double>());
  }
  for (size_t i = 1; i < q.size(); i++)
    if (q[i] < q[i - 1]) throw std::invalid_argument(where + ": quantiles must not decrease");
  return Quantiles(q);
}

json quantiles_json(const Quantiles& q) {
  if (q.values().size() == 2 && q.values()[0] == q.values()[1]) return q.values()[0];
  return q.values();
}

}  // namespace

Profile Profile::from_json(const json& j, const std::string& where) {
  Profile p;
  Reader r{j, where};
  p.name = j.value("name", std::string("unnamed"));
  p.about = j.value("about", json::object());
  p.cores = int(r.num("cores", 2, true, 1, 4096));
  p.online_cpus = int(r.num("online_cpus", p.cores, false, 1, 65536));
  {
    Reader s = r.at("scheduler");
    std::string kind = s.j.value("kind", std::string("eevdf"));
    if (kind != "eevdf" && kind != "cfs")
      throw std::invalid_argument(where + ".scheduler.kind: '" + kind + "' is neither eevdf nor cfs");
    double hz = s.num("hz", 250, false, 24, 10000);
    p.sched = SchedulerParams::for_kernel(kind, p.online_cpus, Time(1e9 / hz));
    if (s.j.contains("base_slice_ns")) p.sched.base_slice_ns = Time(s.num("base_slice_ns", 0, true, 1e4, 1e9));
  }
  {
    Reader i = r.at("idle");
    p.idle.poll_window_ns = Time(i.num("poll_window_ns", 0, false, 0, 1e9));
    const json& ex = i.need("exit_ns");
    if (ex.is_object()) {
      for (auto& [idle, q] : ex.items()) {
        char* end = nullptr;
        double t = std::strtod(idle.c_str(), &end);
        if (*end || !(t >= 0))
          throw std::invalid_argument(i.where + ".exit_ns: '" + idle + "' is not an idle time in ns");
        p.idle.exit_by_idle.emplace_back(Time(t), quantiles(q, i.where + ".exit_ns." + idle));
      }
      std::sort(p.idle.exit_by_idle.begin(), p.idle.exit_by_idle.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
    } else {
      p.idle.exit_by_idle.emplace_back(0, quantiles(ex, i.where + ".exit_ns"));
    }
    p.idle.poll_exit_ns = i.j.contains("poll_exit_ns") ? quantiles(i.j["poll_exit_ns"], i.where + ".poll_exit_ns")
                                                       : Quantiles::constant(0);
  }
  if (j.contains("sleep")) p.core.timer = sleep_cost(r.at("sleep"));
  p.core.irq_ns = Time(r.num("irq_ns", 1000, true, 0, 1e8));
  p.core.switch_ns = Time(r.num("switch_ns", 1000, true, 0, 1e8));
  if (j.contains("reads")) {
    Reader rd = r.at("reads");
    p.reads.clock_ns = Time(rd.num("clock_ns", double(p.reads.clock_ns)));
    p.reads.thread_clock_ns = Time(rd.num("thread_clock_ns", double(p.reads.thread_clock_ns)));
    p.reads.idle_read_ns = Time(rd.num("idle_read_ns", double(p.reads.idle_read_ns)));
    p.reads.idle_states = int(rd.num("idle_states", p.reads.idle_states, false, 1, 16));
  }
  {
    Reader w = r.at("library_wake_cost");
    p.library_wake.cpu_ns = w.num("cpu_ns", 0, true);
    p.library_wake.late_ns = w.num("late_ns", 0, true);
  }
  for (auto& [name, v] : r.need("interfaces").items()) {
    Reader i{v, where + ".interfaces." + name};
    Interface io;
    io.io_ns = Time(i.num("io_ns", 0, true, 0, 1e9));
    io.wait = sleep_cost(i);
    io.irq_ns = Time(i.num("irq_ns", 0, false, 0, 1e9));
    io.peek_ns = Time(i.num("peek_ns", double(io.peek_ns), false, 0, 1e9));
    p.interfaces[name] = io;
  }
  if (j.contains("devices")) {
    for (auto& [name, v] : j.at("devices").items()) {
      Reader d{v, where + ".devices." + name};
      MeasuredDeviceParams dp;
      dp.channels = unsigned(d.num("channels", 16, false, 1, 65536));
      dp.iops = d.num("iops", 0);
      dp.drift_sd = d.num("drift_sd", 0, false, 0, 5);
      dp.drift_corr_1s = d.num("drift_corr_1s", 0.5, false, 0, 0.999);
      for (auto& [size, q] : d.need("latency_ns").items()) {
        unsigned long len = std::stoul(size);
        if (len == 0) throw std::invalid_argument(d.where + ".latency_ns: size '" + size + "' is not a size in bytes");
        dp.latency_ns[uint32_t(len)] = quantiles(q, d.where + ".latency_ns." + size);
      }
      p.devices[name] = dp;
    }
  }
  return p;
}

Profile Profile::load(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::invalid_argument("cannot open profile " + path);
  json j;
  try {
    j = json::parse(f);
  } catch (const json::exception& e) {
    throw std::invalid_argument(path + ": not JSON: " + e.what());
  }
  return from_json(j, path);
}

json Profile::to_json() const {
  json j;
  j["name"] = name;
  j["about"] = about;
  j["cores"] = cores;
  j["online_cpus"] = online_cpus;
  j["scheduler"] = {{"kind", sched.kind}, {"hz", 1e9 / double(sched.tick_ns)}, {"base_slice_ns", sched.base_slice_ns}};
  json exits;
  for (const auto& [t, q] : idle.exit_by_idle) exits[std::to_string(t)] = quantiles_json(q);
  j["idle"] = {
      {"poll_window_ns", idle.poll_window_ns}, {"exit_ns", exits}, {"poll_exit_ns", quantiles_json(idle.poll_exit_ns)}};
  j["irq_ns"] = core.irq_ns;
  j["switch_ns"] = core.switch_ns;
  j["reads"] = {{"clock_ns", reads.clock_ns},
                {"thread_clock_ns", reads.thread_clock_ns},
                {"idle_read_ns", reads.idle_read_ns},
                {"idle_states", reads.idle_states}};
  j["library_wake_cost"] = {{"cpu_ns", library_wake.cpu_ns}, {"late_ns", library_wake.late_ns}};
  j["sleep"] = sleep_json(core.timer);
  for (const auto& [n, io] : interfaces) {
    json i = sleep_json(io.wait);
    i["io_ns"] = io.io_ns;
    i["irq_ns"] = io.irq_ns;
    i["peek_ns"] = io.peek_ns;
    j["interfaces"][n] = i;
  }
  for (const auto& [n, d] : devices) {
    json lat;
    for (const auto& [size, q] : d.latency_ns) lat[std::to_string(size)] = quantiles_json(q);
    j["devices"][n] = {{"channels", d.channels},
                       {"iops", d.iops},
                       {"drift_sd", d.drift_sd},
                       {"drift_corr_1s", d.drift_corr_1s},
                       {"latency_ns", lat}};
  }
  return j;
}

std::string Profile::resolve(const std::string& name, const std::string& dir) {
  if (name.find('/') != std::string::npos || name.find(".json") != std::string::npos) return name;
  return dir + "/" + name + ".json";
}

const Interface& Profile::interface(const std::string& n) const {
  auto it = interfaces.find(n);
  if (it == interfaces.end()) throw std::invalid_argument("profile " + name + " has no interface '" + n + "'");
  return it->second;
}

std::unique_ptr<Device> Profile::device(const std::string& n, uint64_t seed) const {
  auto it = devices.find(n);
  if (it != devices.end()) return std::make_unique<MeasuredDevice>(it->second, seed);
  std::string spec = n.rfind("emu:", 0) == 0 ? n : "emu:" + n;
  return std::make_unique<EmuDevice>(spec, seed);
}

std::string Profile::default_interface(const std::string& device) const {
  return devices.count(device) ? "disk" : "emu";
}

}  // namespace hio::sim
