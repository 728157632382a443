// TicketBook: characters handed to this server by another one (a portal, or a login routed to
// the zone's server), each waiting for its client under a one-time ticket.
//
// A ticket is 24 random bytes (OpenSSL), base64url: unguessable, bound to one character, valid
// for `ttl_seconds` (30) and redeemable once. A client that never comes leaves its character
// here until the ticket expires; Expire hands those back so the caller saves them (the next
// login finds them in storage). At most `capacity` tickets are open at once: beyond that,
// hand-offs are refused (the other server keeps the player beside its portal).
//
// Thread-safe: the cluster layer issues on its threads, sessions redeem on I/O threads, the
// zone runner expires.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "storage/character_record.h"

namespace zs::host {

class TicketBook {
 public:
  struct Options {
    double ttl_seconds = 30;
    size_t capacity = 10000;
  };
  explicit TicketBook(Options options) : options_(options) {}

  // A new ticket for `character` at time `now` (seconds, any monotonic clock), or "" when the
  // book is full or no random bytes could be had.
  [[nodiscard]] std::string Issue(storage::CharacterRecord character, double now);
  // The character of a valid ticket, which is then used up; nullopt for a ticket that is
  // unknown, used or expired.
  [[nodiscard]] std::optional<storage::CharacterRecord> Redeem(const std::string& ticket,
                                                               double now);
  // The characters whose tickets expired by `now` (removed from the book).
  [[nodiscard]] std::vector<storage::CharacterRecord> Expire(double now);
  [[nodiscard]] size_t open() const;

 private:
  struct Entry {
    storage::CharacterRecord character;
    double expires = 0;
  };
  const Options options_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> open_;  // guarded by mu_
};

}  // namespace zs::host
