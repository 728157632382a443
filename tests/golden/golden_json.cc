#include "golden/golden_json.h"

#include <openssl/evp.h>

#include <algorithm>
#include <stdexcept>
#include <type_traits>

namespace zs::golden {
namespace {

using nlohmann::json;

json EntityJson(const client::Entity& e) {
  return json{{"id", e.id},
              {"kind", static_cast<int>(e.kind)},
              {"template_id", e.template_id},
              {"name", e.name},
              {"x", e.x},
              {"y", e.y},
              {"facing", e.facing},
              {"radius", e.radius},
              {"hp", e.hp},
              {"max_hp", e.max_hp},
              {"alive", e.alive}};
}

json EventJson(const client::Event& event) {
  return std::visit(
      [](const auto& e) -> json {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, client::HitEvent>) {
          json targets = json::array();
          for (const auto& t : e.targets)
            targets.push_back(json::array({t.id, t.damage, t.killed}));
          return {{"type", "hit"},
                  {"attacker", e.attacker},
                  {"skill", e.skill_id},
                  {"targets", targets}};
        } else if constexpr (std::is_same_v<T, client::ChatEvent>) {
          return {{"type", "chat"}, {"channel", e.channel}, {"from", e.from_id}, {"text", e.text}};
        } else if constexpr (std::is_same_v<T, client::ResultEvent>) {
          return {{"type", "result"}, {"kind", e.kind}, {"seq", e.seq}, {"outcome", e.outcome}};
        } else if constexpr (std::is_same_v<T, client::ZoneChangedEvent>) {
          return {{"type", "zone_changed"},
                  {"zone_id", e.zone_id},
                  {"server_address", e.server_address},
                  {"websocket_url", e.websocket_url}};
        } else if constexpr (std::is_same_v<T, client::KickEvent>) {
          return {{"type", "kick"}, {"reason", e.reason}};
        } else if constexpr (std::is_same_v<T, client::ErrorEvent>) {
          return {{"type", "error"}, {"code", e.code}};
        } else {
          static_assert(std::is_same_v<T, client::NoticeEvent>);
          return {{"type", "notice"}, {"code", e.code}};
        }
      },
      event);
}

}  // namespace

json StoreJson(const client::EntityStore& store) {
  json out;
  if (const auto& z = store.zone()) {
    out["zone"] = {{"id", z->id},
                   {"name", z->name},
                   {"min", json::array({z->min_x, z->min_y})},
                   {"max", json::array({z->max_x, z->max_y})}};
  } else {
    out["zone"] = nullptr;
  }
  out["tick"] = store.tick() ? json(*store.tick()) : json(nullptr);
  out["last_input_seq"] = store.last_input_seq();
  if (const auto& s = store.self()) {
    out["self"] = {{"id", s->id},         {"x", s->x},   {"y", s->y},
                   {"facing", s->facing}, {"hp", s->hp}, {"alive", s->alive}};
  } else {
    out["self"] = nullptr;
  }
  std::vector<const client::Entity*> sorted;
  sorted.reserve(store.entities().size());
  for (const auto& [id, e] : store.entities()) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(),
            [](const client::Entity* a, const client::Entity* b) { return a->id < b->id; });
  json entities = json::array();
  for (const client::Entity* e : sorted) entities.push_back(EntityJson(*e));
  out["entities"] = std::move(entities);
  out["crowd_total"] = store.crowd_total() ? json(*store.crowd_total()) : json(nullptr);
  return out;
}

json EventsJson(const std::vector<client::Event>& events) {
  json out = json::array();
  for (const client::Event& e : events) out.push_back(EventJson(e));
  return out;
}

std::string Base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string FromBase64(std::string_view text) {
  if (text.size() % 4 != 0) throw std::runtime_error("base64: length not a multiple of 4");
  std::string out(3 * (text.size() / 4) + 1, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) throw std::runtime_error("base64: not base64");
  // EVP_DecodeBlock counts the padding as zero bytes: take them off.
  size_t size = static_cast<size_t>(n);
  for (size_t i = text.size(); i > 0 && text[i - 1] == '=' && size > 0; --i) --size;
  out.resize(size);
  return out;
}

}  // namespace zs::golden
