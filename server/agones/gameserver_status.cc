#include "agones/gameserver_status.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <utility>

namespace zs::agones {

namespace {

using nlohmann::json;

// The longest host name DNS allows; an IPv6 literal is shorter.
constexpr size_t kMaxHostLength = 253;

GameServerAddress Malformed(std::string why) {
  return GameServerAddress::Not(GameServerParse::kMalformed, std::move(why));
}

GameServerAddress Incomplete(std::string why, std::string state) {
  return GameServerAddress::Not(GameServerParse::kIncomplete, std::move(why), std::move(state));
}

std::string WrongType(const std::string& field, const char* expected, const json& got) {
  return field + ": expected " + expected + ", got " + got.type_name();
}

// Parses without exceptions; containers nested deeper than the limit are a failure (and never
// built: nlohmann's parser is iterative, and the callback drops them).
std::optional<json> ParseBounded(std::string_view text, std::string* why) {
  bool too_deep = false;
  const json::parser_callback_t limit = [&too_deep](int depth, json::parse_event_t event, json&) {
    const bool opens =
        event == json::parse_event_t::object_start || event == json::parse_event_t::array_start;
    if (opens && depth >= kMaxGameServerDepth) too_deep = true;
    return !too_deep;
  };
  json doc = json::parse(text.begin(), text.end(), limit, /*allow_exceptions=*/false);
  if (too_deep) {
    *why = "nested deeper than " + std::to_string(kMaxGameServerDepth) + " levels";
    return std::nullopt;
  }
  if (doc.is_discarded()) {
    *why = "not JSON";
    return std::nullopt;
  }
  return doc;
}

bool IsHostCharacter(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == ':';
}

// A port as the JSON of a proto3 int32: a number, or (proto3 JSON parsers accept both) a string
// of digits. 0 or absent: not allocated yet.
std::optional<int64_t> PortNumber(const json& v, const std::string& field, std::string* why) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    int64_t n = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) return n;
    *why = field + ": expected an integer, got \"" + s.substr(0, 16) + "\"";
    return std::nullopt;
  }
  *why = WrongType(field, "an integer", v);
  return std::nullopt;
}

// Finds the port named `name` in status.ports: `out` its port (0: not allocated yet), `named`
// whether it is listed at all, `names` every name listed. False with `why` for a malformed list.
bool FindPort(const json& ports, std::string_view name, uint16_t* out, bool* named,
              std::string* why, std::string* names) {
  if (!ports.is_array()) {
    *why = WrongType("status.ports", "an array", ports);
    return false;
  }
  for (size_t i = 0; i < ports.size(); ++i) {
    const std::string field = "status.ports[" + std::to_string(i) + "]";
    const json& p = ports[i];
    if (!p.is_object()) {
      *why = WrongType(field, "an object", p);
      return false;
    }
    const auto n = p.find("name");
    if (n == p.end() || n->is_null()) continue;
    if (!n->is_string()) {
      *why = WrongType(field + ".name", "a string", *n);
      return false;
    }
    const auto& port_name = n->get_ref<const std::string&>();
    *names += (names->empty() ? "" : ", ") + port_name.substr(0, 64);
    const auto v = p.find("port");
    if (port_name != name) continue;
    *named = true;
    if (v == p.end() || v->is_null()) continue;
    const std::optional<int64_t> port = PortNumber(*v, field + ".port", why);
    if (!port) return false;
    if (*port < 0 || *port > 65535) {
      *why = field + ".port: " + std::to_string(*port) + " is not a port number";
      return false;
    }
    *out = static_cast<uint16_t>(*port);
  }
  return true;
}

// status.address: absent or empty is not known yet; otherwise a host name or IP literal.
bool CheckAddress(const json& status, std::string* host, std::string* why) {
  const auto a = status.find("address");
  if (a == status.end() || a->is_null()) return true;
  if (!a->is_string()) {
    *why = WrongType("status.address", "a string", *a);
    return false;
  }
  const auto& s = a->get_ref<const std::string&>();
  if (s.size() > kMaxHostLength || !std::all_of(s.begin(), s.end(), IsHostCharacter)) {
    *why = "status.address: \"" + s.substr(0, 64) + "\" is not a host name or IP address";
    return false;
  }
  *host = s;
  return true;
}

GameServerAddress FromStatus(const json& status, std::string_view port_name) {
  if (!status.is_object()) return Malformed(WrongType("status", "an object", status));
  std::string state;
  if (const auto s = status.find("state"); s != status.end() && !s->is_null()) {
    if (!s->is_string()) return Malformed(WrongType("status.state", "a string", *s));
    state = s->get<std::string>().substr(0, 64);
  }
  std::string host, why, names;
  if (!CheckAddress(status, &host, &why)) return Malformed(why);
  uint16_t port = 0;
  bool named = false;
  const auto ports = status.find("ports");
  if (ports != status.end() && !ports->is_null() &&
      !FindPort(*ports, port_name, &port, &named, &why, &names)) {
    return Malformed(why);
  }
  const std::string quoted = "'" + std::string(port_name) + "'";
  if (host.empty()) return Incomplete("status.address is empty", state);
  if (named && port == 0) return Incomplete("status.ports: " + quoted + " has no port yet", state);
  if (port == 0) {
    return Incomplete("status.ports has no port named " + quoted +
                          " (ports: " + (names.empty() ? "none" : names) + ")",
                      state);
  }
  return {.outcome = GameServerParse::kOk, .host = host, .port = port, .state = state, .why = {}};
}

}  // namespace

std::string GameServerAddress::HostPort() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

GameServerAddress ParseGameServerAddress(std::string_view json_text, std::string_view port_name) {
  if (json_text.size() > kMaxGameServerBytes) {
    return Malformed("larger than " + std::to_string(kMaxGameServerBytes) + " bytes");
  }
  std::string why;
  const std::optional<json> doc = ParseBounded(json_text, &why);
  if (!doc) return Malformed(why);
  if (!doc->is_object()) return Malformed(WrongType("the answer", "an object", *doc));
  const auto status = doc->find("status");
  if (status == doc->end() || status->is_null()) return Incomplete("no status yet", "");
  return FromStatus(*status, port_name);
}

}  // namespace zs::agones
