// PlayerDirectory: which session plays which character. Sessions and the world speak through
// ids (SessionKey, EntityId), never pointers into each other; this is the one map between them.
// A character's name is unique among the players online, and so is every name that looks like
// it (the same names::LookAlikeKey: "observer", "0bserver", "Observer"), and so is an account
// (other than 0, "no account"): the login path (CharacterKeeper) takes a character over rather
// than adding a second one, and refuses a look-alike.
// With a roster (the runners of one process), every character listed or unlisted here is told
// to it, so that logins find the runner that has their character.
// Thread: its zone runner's only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/entity_id.h"
#include "host/local_zones.h"
#include "host/session_key.h"
#include "host/session_sink.h"
#include "names/player_name.h"
#include "zone/cells.h"
#include "zone/zone_types.h"

namespace zs::host {

class PlayerDirectory {
 public:
  struct Player {
    EntityId entity = kInvalidEntity;
    std::weak_ptr<SessionSink> sink = {};
    std::string name;
    uint64_t account = 0;  // 0: no account (auth mode none)
    bool resync = false;   // the next frame restarts the client's picture
    zone::PlayerSnapshot saved =
        {};  // the state last handed to storage (checkpoints skip equal ones)
    // Crossing the cells of a split zone (docs/seamless.md "Relay"). Its client's connection
    // is here and the node of this cell owns the player now: its inputs are relayed there.
    std::optional<zone::CellRef> owner = {};
    // Owned here, its client's connection at the node of this cell (its key is
    // SessionKey::Relayed): its frames are relayed there.
    std::optional<zone::CellRef> home = {};
    // Added to this world's tick in the player's frames (wrapping), so that its client's count
    // goes on by one per frame whichever node ticked the last one.
    uint64_t tick_offset = 0;
    // Owned here with its client elsewhere: the newest move or skill sequence number relayed
    // (the migrant's at first). A relayed move older than it came by another path (the home's
    // queue, or a node that let the player go) after a newer one: it is dropped.
    uint32_t newest_seq = 0;
  };

  // Tells `roster` (may be null) of every character listed and unlisted, as runner `runner`.
  void SetRoster(LocalZones* roster, size_t runner) {
    roster_ = roster;
    runner_ = runner;
  }

  // REQUIRES: neither the session, the entity, the name nor the account (unless 0) is listed.
  void Add(SessionKey session, Player player) {
    if (roster_ != nullptr) roster_->Listed(runner_, player.name, player.account);
    session_of_[ToRaw(player.entity)] = session;
    by_name_[names::LookAlikeKey(player.name)] = session;
    if (player.account != 0) by_account_[player.account] = session;
    players_[session] = std::move(player);
  }
  void Remove(SessionKey session) {
    const auto it = players_.find(session);
    if (it == players_.end()) return;
    if (roster_ != nullptr) roster_->Unlisted(runner_, it->second.name, it->second.account);
    session_of_.erase(ToRaw(it->second.entity));
    by_name_.erase(names::LookAlikeKey(it->second.name));
    if (it->second.account != 0) by_account_.erase(it->second.account);
    players_.erase(it);
  }
  // The character of `from` is now played through `to` (a second login took it over).
  // REQUIRES: `from` is listed, `to` is not.
  // The roster hears nothing: the character stays online here throughout.
  Player& Rebind(SessionKey from, SessionKey to, std::weak_ptr<SessionSink> sink) {
    LocalZones* const roster = std::exchange(roster_, nullptr);
    Player player = std::move(players_.at(from));
    Remove(from);
    player.sink = std::move(sink);
    Add(to, std::move(player));
    roster_ = roster;
    return players_.at(to);
  }
  // The online player called `name`, or one whose name looks like it (check Player::name), or
  // null (whispers, logins).
  [[nodiscard]] Player* ByName(const std::string& name) {
    return Find(by_name_, names::LookAlikeKey(name));
  }
  [[nodiscard]] Player* ByAccount(uint64_t account) {
    return account == 0 ? nullptr : Find(by_account_, account);
  }
  [[nodiscard]] Player* BySession(SessionKey session) {
    const auto it = players_.find(session);
    return it == players_.end() ? nullptr : &it->second;
  }
  [[nodiscard]] Player* ByEntity(EntityId entity) { return Find(session_of_, ToRaw(entity)); }
  // The session playing `player` (REQUIRES: a pointer this directory returned).
  [[nodiscard]] SessionKey SessionOf(const Player& player) const {
    return session_of_.at(ToRaw(player.entity));
  }
  template <typename Fn>  // fn(SessionKey session, Player&)
  void ForEach(Fn fn) {
    for (auto& [session, player] : players_) fn(session, player);
  }
  [[nodiscard]] size_t size() const { return players_.size(); }

 private:
  template <typename Map, typename Key>
  Player* Find(const Map& map, const Key& key) {
    const auto it = map.find(key);
    return it == map.end() ? nullptr : BySession(it->second);
  }

  std::unordered_map<SessionKey, Player> players_;
  std::unordered_map<uint32_t, SessionKey> session_of_;  // by raw entity id
  std::unordered_map<std::string, SessionKey> by_name_;  // by names::LookAlikeKey
  std::unordered_map<uint64_t, SessionKey> by_account_;  // by account (not 0)
  LocalZones* roster_ = nullptr;
  size_t runner_ = 0;
};

}  // namespace zs::host
