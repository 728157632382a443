// LocalZones: what a zone runner knows of the other runners of its process, and nothing more.
// A player who walks into a portal to a zone ticked by another runner of this process, or a
// login whose character is in such a zone, is handed to that runner with its connection (no
// reconnect, the same entity id); the roster says which runner has which character online, so
// that a character is never online twice and an account once (host::ZoneRunners implements it).
// Threads: any (each runner calls from its own thread).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "host/player_port.h"
#include "host/session_key.h"
#include "host/session_sink.h"
#include "zone/world.h"

namespace zs::host {

// A character handed from one runner of this process to another, with its connection.
struct LocalArrival {
  SessionKey session;
  std::weak_ptr<SessionSink> sink;
  uint64_t account = 0;
  // Set: a player walking through a portal (its id, name, state and input sequence go on);
  // not set: a login whose character was loaded by one runner and lives in another's zone.
  std::optional<zone::World::HandedPlayer> player;
  storage::CharacterRecord character;  // a login's character (player not set)
  bool fresh = false;                  // a login with no character yet: a new one starts here
};

// A whisper to a player another runner of this process has online (not the cross-node client
// relay, RelayPort).
struct SiblingWhisper {
  EntityId from = kInvalidEntity;
  std::string from_name;
  std::string to_name;
  std::string text;
};

class LocalZones {
 public:
  virtual ~LocalZones() = default;
  // Whether zone `zone_id` is ticked by a runner of this process.
  [[nodiscard]] virtual bool HostsHere(uint32_t zone_id) const = 0;
  // Where new characters start: the first hosted zone (in the world config's order).
  [[nodiscard]] virtual uint32_t StartZone() const = 0;
  // Hands `arrival` to the runner of its zone (the player's state.zone, else the character's):
  // from now on the session's requests go there, and so does a login of its name or account.
  // REQUIRES: HostsHere(that zone).
  virtual void HandTo(uint32_t zone_id, LocalArrival arrival) = 0;
  // A login that reached runner `runner` when another runner has its character (or another
  // character of its account) online: true when it was passed on to that runner, which takes
  // the character over (or logs the other one out) as if the login had come there first.
  virtual bool PassOnLogin(size_t runner, SessionKey session,
                           const std::weak_ptr<SessionSink>& sink, const LoginIdentity& who) = 0;
  // A whisper said in runner `runner` to `chat.to_name`, online in another runner: true when
  // it was passed on there (false: nobody of that name is online in another runner).
  virtual bool PassOnWhisper(size_t runner, SiblingWhisper chat) = 0;
  // The roster: a character is online (or no more) in runner `runner`.
  virtual void Listed(size_t runner, const std::string& name, uint64_t account) = 0;
  virtual void Unlisted(size_t runner, const std::string& name, uint64_t account) = 0;
};

}  // namespace zs::host
