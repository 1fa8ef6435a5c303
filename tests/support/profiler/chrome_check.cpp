#include "tests/support/profiler/chrome_check.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

namespace tensord::test {

using nlohmann::json;

ChromeCheck check_chrome_trace(const std::string& text) {
  ChromeCheck c;
  auto fail = [&](size_t i, const std::string& why) {
    if (c.errors.size() < 20) c.errors.push_back("event " + std::to_string(i) + ": " + why);
  };
  json doc;
  try {
    doc = json::parse(text);
  } catch (const std::exception& e) {
    c.errors.push_back(std::string("not JSON: ") + e.what());
    return c;
  }
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    c.errors.push_back("no traceEvents array");
    return c;
  }
  struct Slice {
    double begin, end;
  };
  std::map<std::pair<int64_t, int64_t>, std::vector<Slice>> slices;
  std::map<std::tuple<std::string, std::string, std::string>, double> flow_starts;
  std::vector<std::tuple<std::string, std::string, std::string, double, size_t>> flow_ends;
  const auto& events = doc["traceEvents"];
  for (size_t i = 0; i < events.size(); ++i) {
    const json& e = events[i];
    if (!e.is_object() || !e.contains("ph") || !e["ph"].is_string()) {
      fail(i, "no ph");
      continue;
    }
    std::string ph = e["ph"];
    bool ids = e.contains("pid") && e["pid"].is_number_integer() && e.contains("tid") &&
               e["tid"].is_number_integer();
    if (!ids) fail(i, "pid/tid missing or not integers");
    if (ph == "M") {
      c.metadata++;
      std::string name = e.value("name", "");
      if (name != "process_name" && name != "thread_name") fail(i, "unknown metadata " + name);
      if (!e.contains("args") || !e["args"].contains("name") || !e["args"]["name"].is_string()) {
        fail(i, "metadata without args.name");
      }
      continue;
    }
    if (!e.contains("ts") || !e["ts"].is_number() || e["ts"].get<double>() < 0) {
      fail(i, "ts missing or negative");
      continue;
    }
    double ts = e["ts"];
    if (!e.contains("name") || !e["name"].is_string()) fail(i, "no name");
    if (ph == "X") {
      c.complete++;
      if (!e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0) {
        fail(i, "X without dur >= 0");
        continue;
      }
      if (ids) slices[{e["pid"], e["tid"]}].push_back({ts, ts + e["dur"].get<double>()});
    } else if (ph == "s" || ph == "f") {
      c.flows++;
      if (!e.contains("id")) {
        fail(i, "flow without id");
        continue;
      }
      auto key = std::make_tuple(e["id"].dump(), e.value("name", ""), e.value("cat", ""));
      if (ph == "s") {
        flow_starts[key] = ts;
      } else {
        if (e.value("bp", "") != "e") fail(i, "flow end without bp e");
        flow_ends.emplace_back(std::get<0>(key), std::get<1>(key), std::get<2>(key), ts, i);
      }
    } else if (ph == "C") {
      c.counters++;
      if (!e.contains("args") || !e["args"].is_object() || e["args"].empty()) {
        fail(i, "counter without args");
        continue;
      }
      for (const auto& [k, v] : e["args"].items()) {
        if (!v.is_number()) fail(i, "counter " + k + " not a number");
      }
    } else if (ph == "i") {
      c.instants++;
      std::string s = e.value("s", "t");
      if (s != "g" && s != "p" && s != "t") fail(i, "instant scope " + s);
    } else {
      fail(i, "unknown ph " + ph);
    }
  }
  for (const auto& [id, name, cat, ts, i] : flow_ends) {
    auto it = flow_starts.find({id, name, cat});
    if (it == flow_starts.end()) {
      fail(i, "flow end " + id + " without a start");
    } else if (it->second > ts) {
      fail(i, "flow end " + id + " before its start");
    }
  }
  // Slices of one thread must nest: sorted by begin (longer first), each one ends within the
  // innermost open slice that contains its begin. Times are microseconds with ns fractions.
  constexpr double kEps = 1e-3;
  for (auto& [thread, list] : slices) {
    std::sort(list.begin(), list.end(), [](const Slice& a, const Slice& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
    });
    std::vector<Slice> open;
    for (const Slice& s : list) {
      while (!open.empty() && open.back().end <= s.begin + kEps) open.pop_back();
      if (!open.empty() && s.end > open.back().end + kEps) {
        c.errors.push_back("slices overlap on tid " + std::to_string(thread.second) + " at " +
                           std::to_string(s.begin));
        break;
      }
      open.push_back(s);
    }
  }
  return c;
}

}  // namespace tensord::test
