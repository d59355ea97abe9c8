// SPDX-License-Identifier: MIT
// hio-bench: parse, prepare the targets, run the jobs in parallel, report.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <thread>

#include "hybridio/hio.h"
#include "job.hpp"
#include "kernel.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "report.hpp"

using namespace hiobench;

namespace {

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "hio-bench: %s\n", msg.c_str());
  return 2;
}

bool is_kernel_side(hio_wait_mode m) {
  return m == HIO_WAIT_IOPOLL || m == HIO_WAIT_HYBRID_IOPOLL || m == HIO_WAIT_SQPOLL;
}

// --help, --list-strategies, --version: what they print, or false for a run.
bool print_info(const Invocation& inv) {
  if (inv.help) {
    std::fputs(usage_text(), stdout);
  } else if (inv.list_strategies) {
    for (int m = HIO_WAIT_INTERRUPT; m <= HIO_WAIT_ADAPTIVE; m++)
      std::printf("%s\t%s\n", hio_wait_mode_name(hio_wait_mode(m)),
                  is_kernel_side(hio_wait_mode(m)) ? "kernel-side" : "user-space");
  } else if (inv.version) {
    std::printf("hio-bench %s\n", hio_version());
  } else {
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Invocation inv;
  try {
    inv = parse_invocation(argc, argv);
  } catch (const UsageError& e) {
    return usage_error(e.what());
  }
  if (print_info(inv)) return 0;
  if (std::string old = running_kernel_too_old(); !old.empty()) {
    std::fprintf(stderr, "hio-bench: %s\n", old.c_str());
    return 1;
  }
  hio_engine* engine = nullptr;
  if (hio_engine_create(&engine) < 0) return usage_error(hio_last_error());
  if (!inv.jobs.empty() && hio_engine_emulate(engine, inv.jobs.front().emulate.c_str()) < 0) {
    hio_engine_destroy(engine);
    return usage_error(hio_last_error());
  }
  std::vector<JobResult> results(inv.jobs.size());
  std::vector<JobProgress> progress(inv.jobs.size());
  try {
    for (const auto& j : inv.jobs) prepare_target(engine, j);
    SharedResources shared(engine, inv.jobs);
    std::vector<std::exception_ptr> errors(inv.jobs.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < inv.jobs.size(); i++)
      threads.emplace_back([&, i] {
        try {
          results[i] = run_job(engine, inv.jobs[i], unsigned(i), progress[i], shared);
        } catch (...) {
          errors[i] = std::current_exception();
          progress[i].done = true;
        }
      });
    show_progress(inv.jobs, progress);
    for (auto& t : threads) t.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  } catch (const UsageError& e) {
    hio_engine_destroy(engine);
    return usage_error(e.what());
  } catch (const RunError& e) {
    hio_engine_destroy(engine);
    std::fprintf(stderr, "hio-bench: %s\n", e.what());
    return 1;
  }
  hio_engine_destroy(engine);

  std::string report = inv.output_format == "json" ? report_json(inv.jobs, results) : report_normal(inv.jobs, results);
  if (inv.output.empty()) {
    std::fputs(report.c_str(), stdout);
  } else {
    std::ofstream out(inv.output);
    if (!(out << report)) return usage_error("cannot write --output=" + inv.output + ": " + std::strerror(errno));
  }
  int status = 0;
  for (const auto& r : results) {
    if (r.error) {
      std::fprintf(stderr, "hio-bench: %s: %s\n", r.name.c_str(), r.error_msg.c_str());
      status = 1;
    }
    if (r.mismatches) {
      std::fprintf(stderr, "hio-bench: %s: %s (%llu mismatched blocks)\n", r.name.c_str(), r.first_mismatch.c_str(),
                   (unsigned long long)r.mismatches);
      status = 1;
    }
  }
  return status;
}
