#include "protocol/wire_error.h"

#include <charconv>

namespace tensord::protocol {
namespace {

constexpr std::string_view kOpen = "[tensord:";

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

template <typename T>
std::optional<T> parse_number(std::string_view s) {
  T value{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return value;
}

// Reads the fields between "[tensord:" and the closing "] ". `s` starts after the opening.
class PrefixParser {
 public:
  explicit PrefixParser(std::string_view s) : s_(s) {}

  std::optional<Error> parse() {
    std::string_view code_name = word();
    auto code = error_code_from_name(code_name);
    if (!code) return std::nullopt;
    std::optional<uint32_t> node;
    std::string op;
    SourceLocation where;
    while (pos_ < s_.size() && s_[pos_] == ' ') {
      ++pos_;
      if (take("node=")) {
        node = parse_number<uint32_t>(word());
        if (!node) return std::nullopt;
      } else if (take("op=")) {
        op = std::string(word());
      } else if (take("at=")) {
        // The location runs to the first unescaped ']'; its line follows the last ':'.
        std::string loc;
        while (pos_ < s_.size() && s_[pos_] != ']') {
          if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) ++pos_;
          loc += s_[pos_++];
        }
        size_t colon = loc.rfind(':');
        if (colon == std::string::npos) return std::nullopt;
        auto line = parse_number<uint32_t>(std::string_view(loc).substr(colon + 1));
        if (!line) return std::nullopt;
        where = SourceLocation{loc.substr(0, colon), *line};
      } else {
        return std::nullopt;
      }
    }
    if (!take("] ")) return std::nullopt;
    return Error(*code, std::string(s_.substr(pos_)), node, std::move(op), std::move(where));
  }

 private:
  std::string_view word() {
    size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != ' ' && s_[pos_] != ']') ++pos_;
    return s_.substr(start, pos_ - start);
  }
  bool take(std::string_view token) {
    if (s_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

std::string encode_error(const Error& e) {
  std::string s(kOpen);
  s += name(e.code());
  if (e.node()) s += " node=" + std::to_string(*e.node());
  if (!e.op().empty()) s += " op=" + e.op();
  if (!e.where().empty())
    s += " at=" + escape(e.where().file) + ":" + std::to_string(e.where().line);
  s += "] ";
  s += e.message();
  return s;
}

std::optional<Error> decode_error(std::string_view description) {
  size_t start = description.find(kOpen);
  if (start == std::string_view::npos) return std::nullopt;
  return PrefixParser(description.substr(start + kOpen.size())).parse();
}

kj::Exception to_kj_exception(const Error& e) {
  std::string description = encode_error(e);
  return kj::Exception(kj::Exception::Type::FAILED, __FILE__, __LINE__,
                       kj::heapString(description.data(), description.size()));
}

Error from_kj_exception(const kj::Exception& e) {
  std::string_view description(e.getDescription().cStr(), e.getDescription().size());
  if (auto decoded = decode_error(description)) return *decoded;
  if (e.getType() == kj::Exception::Type::DISCONNECTED) {
    // KJ's own words name a syscall ("::writev(...): Broken pipe"): say first what happened.
    return Error(ErrorCode::Cancelled, "the connection was lost: " + std::string(description));
  }
  return Error(ErrorCode::Internal, std::string(description));
}

}  // namespace tensord::protocol
