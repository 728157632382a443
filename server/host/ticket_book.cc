#include "host/ticket_book.h"

#include "auth/token.h"

namespace zs::host {

namespace {
constexpr size_t kTicketBytes = 24;  // 192 bits: not guessable within a ticket's 30 s
}  // namespace

std::string TicketBook::Issue(storage::CharacterRecord character, double now) {
  std::string ticket = auth::RandomBase64Url(kTicketBytes);
  if (ticket.empty()) return {};
  std::lock_guard lock(mu_);
  if (open_.size() >= options_.capacity) return {};
  open_[ticket] = {.character = std::move(character), .expires = now + options_.ttl_seconds};
  return ticket;
}

std::optional<storage::CharacterRecord> TicketBook::Redeem(const std::string& ticket, double now) {
  std::lock_guard lock(mu_);
  const auto it = open_.find(ticket);
  if (it == open_.end() || it->second.expires <= now) return std::nullopt;
  storage::CharacterRecord character = std::move(it->second.character);
  open_.erase(it);
  return character;
}

std::vector<storage::CharacterRecord> TicketBook::Expire(double now) {
  std::vector<storage::CharacterRecord> expired;
  std::lock_guard lock(mu_);
  for (auto it = open_.begin(); it != open_.end();) {
    if (it->second.expires <= now) {
      expired.push_back(std::move(it->second.character));
      it = open_.erase(it);
    } else {
      ++it;
    }
  }
  return expired;
}

size_t TicketBook::open() const {
  std::lock_guard lock(mu_);
  return open_.size();
}

}  // namespace zs::host
