// textfeed stats: what a running daemon is doing: per-stream and total samples/s, per-stage
// times, fills in flight, credits, skipped samples.
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "base/printable.h"
#include "tools/client_options.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "transport/connection.h"

namespace textfeed::tools {
namespace {

// `text` escaped and cut to at most `width` bytes for a table column, never inside an escape or a
// UTF-8 character; a cut text ends with '~'.
std::string column(const std::string& text, size_t width) {
  const std::string shown = printable(text);
  if (shown.size() <= width) return shown;
  // Whole units from the start: an escape (\\, \n, ... or \xNN) or one UTF-8 character.
  size_t cut = 0;
  while (cut < shown.size()) {
    const unsigned char c = static_cast<unsigned char>(shown[cut]);
    size_t unit = 1;
    if (c == '\\')
      unit = cut + 1 < shown.size() && shown[cut + 1] == 'x' ? 4 : 2;
    else if (c >= 0xF0)
      unit = 4;
    else if (c >= 0xE0)
      unit = 3;
    else if (c >= 0xC0)
      unit = 2;
    if (cut + unit > width - 1) break;
    cut += unit;
  }
  return shown.substr(0, cut) + "~";
}

struct StatsArgs {
  std::string endpoint;
  bool json = false;
  double timeout_s = 10;
  CurveFlags curve;
};

// {"read": ms, "decode": ms, ...}
nlohmann::ordered_json stages_json(const std::vector<std::string>& names,
                                   const std::vector<double>& ms) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (size_t i = 0; i < names.size() && i < ms.size(); ++i) j[names[i]] = ms[i];
  return j;
}

nlohmann::ordered_json to_json(const transport::Stats& s, const std::string& endpoint) {
  nlohmann::ordered_json j;
  j["endpoint"] = endpoint;
  j["uptime_s"] = s.uptime_seconds;
  j["threads"] = s.threads;
  j["clients"] = s.clients;
  j["samples_per_s"] = s.samples_per_second;
  j["samples"] = s.samples;
  j["skipped_samples"] = s.skipped_samples;
  j["fills_running"] = s.queue_depth;
  j["stage_ms_per_sample"] = stages_json(s.stage_names, s.stage_ms);
  j["streams"] = nlohmann::ordered_json::array();
  for (const transport::StreamStats& t : s.streams) {
    nlohmann::ordered_json x;
    x["id"] = t.stream_id;
    x["client"] = t.client;
    x["dataset"] = t.dataset;
    x["rank"] = t.rank;
    x["world_size"] = t.world_size;
    x["transport"] = std::string(transport::transport_name(t.transport));
    x["epoch"] = t.epoch;
    x["next_batch"] = t.next_batch;
    x["batches"] = t.batches;
    x["samples"] = t.samples;
    x["samples_per_s"] = t.samples_per_second;
    x["in_flight"] = t.in_flight;
    x["credits"] = t.credits_outstanding;
    x["skipped_samples"] = t.skipped_samples;
    x["stage_ms_per_sample"] = stages_json(s.stage_names, t.stage_ms);
    j["streams"].push_back(x);
  }
  return j;
}

void run(const StatsArgs& a) {
  transport::ConnectOptions co;
  co.timeout = std::chrono::milliseconds(static_cast<int64_t>(a.timeout_s * 1000));
  co.curve = curve_client_options("stats", a.curve);
  auto c = transport::Connection::connect(a.endpoint, "textfeed stats", co);
  if (!c.has_value()) fail("stats", c.error().to_string(), 2);
  auto s = (*c)->stats(co.timeout);
  if (!s.has_value()) fail("stats", s.error().to_string());
  if (a.json) {
    std::cout << json_text(to_json(*s, a.endpoint)) << "\n";
    return;
  }
  std::printf(
      "textfeed serve at %s: up %.1f s, %u worker threads, %u client(s), %u fill(s) running\n",
      printable(a.endpoint).c_str(), s->uptime_seconds, s->threads, s->clients, s->queue_depth);
  std::printf("total: %.1f samples/s now, %llu samples delivered, %llu skipped\n",
              s->samples_per_second, static_cast<unsigned long long>(s->samples),
              static_cast<unsigned long long>(s->skipped_samples));
  std::printf("stage ms/sample (summed over threads):");
  for (size_t i = 0; i < s->stage_names.size() && i < s->stage_ms.size(); ++i)
    std::printf("  %s %.2f", printable(s->stage_names[i]).c_str(), s->stage_ms[i]);
  std::printf("\n");
  if (s->streams.empty()) {
    std::printf("no open streams\n");
    return;
  }
  std::printf("%-16s %-22s %-10s %-9s %-7s %-11s %8s %9s %10s %9s %7s %7s\n", "stream", "client",
              "dataset", "rank", "via", "epoch:batch", "batches", "samples", "samples/s",
              "in-flight", "credits", "skipped");
  for (const transport::StreamStats& t : s->streams) {
    const std::string rank = std::to_string(t.rank) + "/" + std::to_string(t.world_size);
    const std::string pos = std::to_string(t.epoch) + ":" + std::to_string(t.next_batch);
    std::printf("%-16llu %-22s %-10s %-9s %-7s %-11s %8llu %9llu %10.1f %9u %7u %7llu\n",
                static_cast<unsigned long long>(t.stream_id), column(t.client, 22).c_str(),
                column(t.dataset, 10).c_str(), rank.c_str(),
                std::string(transport::transport_name(t.transport)).c_str(), pos.c_str(),
                static_cast<unsigned long long>(t.batches),
                static_cast<unsigned long long>(t.samples), t.samples_per_second, t.in_flight,
                t.credits_outstanding, static_cast<unsigned long long>(t.skipped_samples));
  }
}

}  // namespace

void add_stats_command(CLI::App& app) {
  auto a = std::make_shared<StatsArgs>();
  CLI::App* cmd = app.add_subcommand(
      "stats",
      "Show what a running `textfeed serve` is doing: samples/s per stream and in total, "
      "per-stage times, fills in flight, credits, skipped samples.");
  cmd->add_option("endpoint", a->endpoint, "the daemon's endpoint, e.g. ipc:///tmp/textfeed.sock")
      ->required();
  cmd->add_flag("--json", a->json, "print one JSON object");
  cmd->add_option("--timeout", a->timeout_s, "seconds to wait for the daemon (default 10)")
      ->check(finite_in(0.1, 3600.0));
  add_curve_flags(cmd, a->curve);
  cmd->callback([a] { run(*a); });
}

}  // namespace textfeed::tools
