// HandoffPort: how the zone runner hands a character to the server that hosts another zone,
// without knowing how servers find and talk to each other (the cluster layer implements it over
// NATS; a server that hosts every zone has none).
#pragma once

#include <functional>
#include <string>

#include "core/vec2.h"
#include "storage/character_record.h"

namespace zs::host {

struct HandoffOffer {
  storage::CharacterRecord character;  // state.zone: the target zone; state.position: arrival
};

struct HandoffAnswer {
  enum class Outcome : uint8_t {
    kAccepted,     // ticket and address set: the client reconnects there
    kRefused,      // the owner said no (not hosted there after all, full, bad request)
    kUnreachable,  // no owner in the directory, no answer in time, or no connection
  };
  Outcome outcome = Outcome::kUnreachable;
  std::string ticket;
  std::string address;        // "host:port" the client connects to
  std::string websocket_url;  // the same server's WebSocket door (ws:// or wss://); empty: none
  std::string reason;         // for the log (and the player's notice), never a secret
};

class HandoffPort {
 public:
  virtual ~HandoffPort() = default;
  // Asks the owner of offer.character.state.zone to take the character. Never blocks the
  // caller; `done` is called exactly once, on any thread.
  virtual void Offer(HandoffOffer offer, std::function<void(HandoffAnswer)> done) = 0;
};

}  // namespace zs::host
