#include "server/dashboard.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>

#include "server/dashboard_memory.h"
#include "server/dashboard_profile.h"
#include "server/dashboard_status.h"
#include "server/metrics_text.h"
#include "server/token.h"

namespace tensord::server {
namespace {

// The built page is a few files of some hundred KiB; anything far larger is not ours.
constexpr std::uintmax_t kMaxPageFileBytes = std::uintmax_t{16} << 20;

std::string_view content_type(std::string_view path) {
  const auto ends = [&](std::string_view ext) { return path.ends_with(ext); };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js") || ends(".mjs")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".json") || ends(".map")) return "application/json";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  if (ends(".ico")) return "image/x-icon";
  if (ends(".woff2")) return "font/woff2";
  return "application/octet-stream";
}

// A request path that names a file under the page folder: letters, digits and "._-/" only, no
// empty, "." or ".." segment. nullopt for anything else (the caller answers 404).
std::optional<std::string> page_file(std::string_view path) {
  if (path == "/") return std::string("index.html");
  if (!path.starts_with("/")) return std::nullopt;
  path.remove_prefix(1);
  for (char c : path) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == '-' || c == '/';
    if (!plain) return std::nullopt;
  }
  for (size_t begin = 0; begin <= path.size();) {
    const size_t end = std::min(path.find('/', begin), path.size());
    const std::string_view segment = path.substr(begin, end - begin);
    if (segment.empty() || segment == "." || segment == "..") return std::nullopt;
    begin = end + 1;
  }
  return std::string(path);
}

std::optional<std::string> read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxPageFileBytes) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return std::nullopt;
  return std::move(text).str();
}

// {"error": message}; the message may hold a client's bytes (a path): escaped, never invalid.
std::string json_error(std::string_view message) {
  return nlohmann::json{{"error", message}}.dump(-1, ' ', false,
                                                 nlohmann::json::error_handler_t::replace);
}

}  // namespace

// kj::HttpService has virtual functions and a non-virtual destructor; a Service is only ever
// destroyed as itself (Dashboard owns a kj::Own<Service>).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class Dashboard::Service final : public kj::HttpService {
 public:
  Service(std::shared_ptr<DaemonState> daemon, kj::Timer& timer,
          kj::HttpHeaderTable::Builder& builder, std::string page_dir)
      : daemon_(std::move(daemon)),
        timer_(timer),
        page_dir_(std::move(page_dir)),
        table_(builder.getFutureTable()),
        authorization_(builder.add("Authorization")),
        content_type_(builder.add("Content-Type")),
        cache_control_(builder.add("Cache-Control")),
        allow_(builder.add("Allow")),
        nosniff_(builder.add("X-Content-Type-Options")) {}

  kj::Promise<void> sample_memory() { return server::sample_memory(*daemon_, memory_, timer_); }

  kj::Promise<void> request(kj::HttpMethod method, kj::StringPtr url,
                            const kj::HttpHeaders& headers, kj::AsyncInputStream&,
                            Response& response) override {
    std::string_view path(url.cStr(), url.size());
    path = path.substr(0, path.find_first_of("?#"));
    const bool head = method == kj::HttpMethod::HEAD;
    if (method != kj::HttpMethod::GET && !head) {
      return send(response, 405, "Method Not Allowed", "application/json",
                  json_error("the dashboard is read-only: GET or HEAD"), false);
    }
    if (path == "/metrics") {
      if (!authorized(headers)) {
        return send(response, 401, "Unauthorized", "text/plain; charset=utf-8",
                    "this daemon has a token: send 'Authorization: Bearer TOKEN'\n", head);
      }
      return send(response, 200, "OK", "text/plain; version=0.0.4; charset=utf-8",
                  metrics_text(*daemon_), head);
    }
    if (path.starts_with("/api/")) {
      if (path != "/api/status" && path != "/api/profile" && path != "/api/profile/timeline") {
        return send(response, 404, "Not Found", "application/json",
                    json_error("no such API: " + std::string(path) +
                               " (there are /api/status, /api/profile and /api/profile/timeline)"),
                    head);
      }
      if (!authorized(headers)) {
        return send(response, 401, "Unauthorized", "application/json",
                    json_error("this daemon has a token: send 'Authorization: Bearer TOKEN'"),
                    head);
      }
      const std::string_view full(url.cStr(), url.size());
      const size_t mark = full.find('?');
      std::string_view query = mark == std::string_view::npos ? "" : full.substr(mark + 1);
      query = query.substr(0, query.find('#'));
      if (path == "/api/profile") {
        return profile_session(daemon_, timer_, profiles_, query)
            .then([this, &response, head](DashboardAnswer a) {
              return send(response, a.status, reason(a.status), "application/json",
                          std::move(a.body), head);
            });
      }
      if (path == "/api/profile/timeline") {
        DashboardAnswer a = profile_window(profiles_, query);
        return send(response, a.status, reason(a.status), "application/json", std::move(a.body),
                    head);
      }
      return send(response, 200, "OK", "application/json", dashboard_status_json(*daemon_, memory_),
                  head);
    }
    const std::optional<std::string> file = page_file(path);
    if (!file) {
      return send(response, 404, "Not Found", "text/plain; charset=utf-8", "not found\n", head);
    }
    if (std::optional<std::string> body = read_file(std::filesystem::path(page_dir_) / *file)) {
      return send(response, 200, "OK", content_type(*file), std::move(*body), head);
    }
    if (*file == "index.html") {
      return send(response, 404, "Not Found", "text/plain; charset=utf-8",
                  "tensord: the dashboard's page is not built (looked in '" + page_dir_ +
                      "'): build profiler_ui/ with scripts/build (needs npm), or pass "
                      "--dashboard-dir. The API is at /api/status.\n",
                  head);
    }
    return send(response, 404, "Not Found", "text/plain; charset=utf-8", "not found\n", head);
  }

 private:
  bool authorized(const kj::HttpHeaders& headers) const {
    const std::string& token = daemon_->config.token;
    if (token.empty()) return true;
    KJ_IF_MAYBE (value, headers.get(authorization_)) {
      std::string_view given(value->cStr(), value->size());
      constexpr std::string_view kBearer = "Bearer ";
      if (!given.starts_with(kBearer)) return false;
      given.remove_prefix(kBearer.size());
      return same_token(token, given);
    }
    return false;
  }

  kj::Promise<void> send(Response& response, unsigned status, kj::StringPtr status_text,
                         std::string_view type, std::string body, bool head) {
    kj::HttpHeaders headers(table_);
    headers.set(content_type_, kj::heapString(type.data(), type.size()));
    headers.set(cache_control_, "no-store");
    headers.set(nosniff_, "nosniff");
    if (status == 405) headers.set(allow_, "GET, HEAD");
    auto stream = response.send(status, status_text, headers, uint64_t{body.size()});
    if (head) return kj::READY_NOW;
    // Heap-held: a moved std::string may move its bytes (short strings live inside it).
    auto owned = kj::heap<std::string>(std::move(body));
    auto written = stream->write(owned->data(), owned->size());
    return written.attach(kj::mv(stream), kj::mv(owned));
  }

  static kj::StringPtr reason(unsigned status) {
    switch (status) {
      case 200:
        return "OK";
      case 400:
        return "Bad Request";
      case 404:
        return "Not Found";
      default:
        return "Conflict";  // 409
    }
  }

  std::shared_ptr<DaemonState> daemon_;
  kj::Timer& timer_;
  MemoryHistory memory_;
  KeptProfiles profiles_;  // the last /api/profile answers, for /api/profile/timeline
  std::string page_dir_;
  const kj::HttpHeaderTable& table_;
  kj::HttpHeaderId authorization_, content_type_, cache_control_, allow_, nosniff_;
};
#pragma GCC diagnostic pop

// What kj-http would log at ERROR on stderr for each bad request (a body it cannot drain after
// the answer, e.g. a malformed chunk) goes to the daemon's log at debug: any client could
// otherwise fill the log. A service failure before the answer is a 500 and a warning.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"  // as Service: owned as itself
class Dashboard::Errors final : public kj::HttpServerErrorHandler {
 public:
  Errors(Logger& log, const kj::HttpHeaderTable& table) : log_(log), table_(table) {}

  kj::Promise<void> handleApplicationError(
      kj::Exception exception, kj::Maybe<kj::HttpService::Response&> response) override {
    KJ_IF_MAYBE (r, response) {
      log_.warn(std::string("dashboard: ") + exception.getDescription().cStr());
      return r->sendError(500, "Internal Server Error", table_);
    }
    log_.debug(std::string("dashboard: a request ended badly after its answer: ") +
               exception.getDescription().cStr());
    return kj::READY_NOW;
  }

 private:
  Logger& log_;
  const kj::HttpHeaderTable& table_;
};
#pragma GCC diagnostic pop

Dashboard::Dashboard(std::shared_ptr<DaemonState> daemon, kj::Timer& timer, std::string page_dir) {
  kj::HttpHeaderTable::Builder builder;
  Logger& log = daemon->log;
  service_ = kj::heap<Service>(std::move(daemon), timer, builder, std::move(page_dir));
  headers_ = builder.build();
  errors_ = kj::heap<Errors>(log, *headers_);
  kj::HttpServerSettings settings;
  settings.errorHandler = *errors_;
  server_ = kj::heap<kj::HttpServer>(timer, *headers_, *service_, settings);
}

Dashboard::~Dashboard() = default;

kj::Promise<void> Dashboard::listen(kj::ConnectionReceiver& receiver) {
  // The memory history is sampled while the dashboard serves: it stops with the daemon's serving,
  // before the devices do.
  return server_->listenHttp(receiver).exclusiveJoin(service_->sample_memory());
}

std::string Dashboard::default_page_dir(const std::string& build_tree_dir) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed =
        exe.parent_path().parent_path() / "share" / "tensord" / "dashboard";
    if (std::filesystem::exists(installed / "index.html", ec)) return installed.string();
  }
  return build_tree_dir;
}

}  // namespace tensord::server
