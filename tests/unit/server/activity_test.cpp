// The dashboard's ActivityLog (bounded, counts every run) and the --dashboard options.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "server/activity.h"
#include "server/options.h"

using tensord::server::ActivityLog;

namespace {

ActivityLog::Run run(uint64_t session, std::string error = {}) {
  ActivityLog::Run r;
  r.session = session;
  r.start = ActivityLog::Clock::now();
  r.nodes = 3;
  r.error = std::move(error);
  return r;
}

tensord::server::CommandLine parse(std::vector<const char*> args) {
  args.insert(args.begin(), "tensord");
  return tensord::server::parse_command_line(static_cast<int>(args.size()), args.data(), "",
                                             "unix:/tmp/x.sock");
}

}  // namespace

TEST_CASE("the activity log keeps the last runs and counts all of them") {
  ActivityLog log;
  const size_t total = ActivityLog::kMaxRuns + 50;
  for (size_t i = 0; i < total; ++i) log.finished(run(i, i % 10 == 0 ? "shape error" : ""));
  REQUIRE(log.recent_runs().size() == ActivityLog::kMaxRuns);
  CHECK(log.recent_runs().front().session == 50);  // the oldest kept
  CHECK(log.recent_runs().back().session == total - 1);
  CHECK(log.failed_runs() == 25);
  CHECK(log.runs() == total - 25);
}

TEST_CASE("--dashboard takes a listen address and --dashboard-dir a folder") {
  auto cl = parse({"--dashboard", "tcp:127.0.0.1:0", "--dashboard-dir=/srv/ui"});
  REQUIRE_FALSE(cl.text);
  CHECK(cl.options.dashboard == "tcp:127.0.0.1:0");
  CHECK(cl.options.dashboard_dir == "/srv/ui");
  CHECK(parse({}).options.dashboard.empty());  // off by default

  auto bad = parse({"--dashboard", "127.0.0.1:8077"});
  REQUIRE(bad.text);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(*bad.text, Catch::Contains("bad --dashboard address '127.0.0.1:8077'"));
  CHECK(parse({"--dashboard"}).exit_code == 2);
  CHECK(parse({"--dashboard", "tcp:127.0.0.1:99999"}).exit_code == 2);
}
