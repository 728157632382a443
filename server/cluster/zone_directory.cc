// ZoneDirectory: claims (atomic create), CAS heartbeats, lookups and release on a JetStream KV.
#include "cluster/zone_directory.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "cluster.pb.h"

namespace zs::cluster {

namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;
// Claim: create, read, update can race with an expiry or another claimer; after this many
// rounds the entry is "changing too fast" and the claim fails.
constexpr int kClaimAttempts = 3;
// The bucket keeps one revision per key: only "who owns it now" matters.
constexpr uint8_t kHistory = 1;

// The directory key of a claim: the zone id, or CellKey for a cell of a split zone.
std::string KeyOf(uint32_t zone_id, uint32_t cell) {
  return cell == zone::kWholeZone ? std::to_string(zone_id) : CellKey(zone_id, cell);
}

std::string ZoneLabel(const ZoneClaim& claim) {
  std::string label = "zone " + std::to_string(claim.zone_id);
  if (!claim.name.empty()) label += " (" + claim.name + ")";
  if (claim.cell != zone::kWholeZone) label += " cell " + std::to_string(claim.cell);
  return label;
}

std::string Encode(const ZoneOwner& owner) {
  v1::ZoneOwner msg;
  msg.set_node(owner.node);
  msg.set_address(owner.address);
  msg.set_zone_id(owner.zone_id);
  msg.set_started_ms(owner.started_ms);
  return msg.SerializeAsString();
}

bool Decode(const void* data, int len, ZoneOwner* out) {
  v1::ZoneOwner msg;
  if (!msg.ParseFromArray(data, len)) return false;
  *out = ZoneOwner{.node = msg.node(),
                   .address = msg.address(),
                   .zone_id = msg.zone_id(),
                   .started_ms = msg.started_ms()};
  return true;
}

ClaimResult Fail(const std::string& error) { return ClaimResult{.ok = false, .error = error}; }
ClaimResult Claimed() { return ClaimResult{.ok = true, .error = {}}; }

}  // namespace

ZoneDirectory::ZoneDirectory(NatsBus& bus, DirectoryOptions options, LostFn on_lost)
    : bus_(bus),
      options_(std::move(options)),
      on_lost_(std::move(on_lost)),
      interval_(std::chrono::milliseconds(int64_t{options_.ttl_seconds} * 1000 / 3)) {
  if (options_.ttl_seconds < 1) {
    throw DirectoryError("zone directory: ttl_seconds must be at least 1, got " +
                         std::to_string(options_.ttl_seconds));
  }
  OpenBucket();
}

ZoneDirectory::~ZoneDirectory() {
  StopHeartbeat();
  if (kv_ != nullptr) kvStore_Destroy(kv_);
}

void ZoneDirectory::OpenBucket() {
  jsCtx* js = bus_.jetstream();
  if (js == nullptr) throw DirectoryError("zone directory: the NATS bus is closed");
  kvConfig config;
  kvConfig_Init(&config);
  config.Bucket = options_.bucket.c_str();
  config.Description = "zone_server: which node hosts which zone (key: zone id)";
  config.History = kHistory;
  config.TTL = int64_t{options_.ttl_seconds} * kNanosPerSecond;  // JetStream MaxAge: ns
  config.StorageType = options_.storage == KvStorage::kFile ? js_FileStorage : js_MemoryStorage;
  config.Replicas = 1;
  natsStatus s = js_CreateKeyValue(&kv_, js, &config);
  if (s == NATS_OK) return;
  // Exists with another configuration (another ttl or storage): use it as it is, loudly.
  const std::string create_error = NatsErrorText(s);
  kv_ = nullptr;
  s = js_KeyValue(&kv_, js, options_.bucket.c_str());
  if (s != NATS_OK) {
    kv_ = nullptr;
    throw DirectoryError("zone directory: cannot create the key-value bucket '" + options_.bucket +
                         "' on " + bus_.describe() + ": " + create_error + "; nor bind to it: " +
                         NatsErrorText(s) + " (is JetStream enabled: nats-server -js?)");
  }
  spdlog::warn(
      "cluster: bucket '{}' exists with a configuration other than ours (ttl {} s): {}; "
      "using it as it is",
      options_.bucket, options_.ttl_seconds, create_error);
}

ZoneDirectory::Read ZoneDirectory::ReadKey(const std::string& key) const {
  if (!bus_.connected()) {
    return Read{.found = Found::kError,
                .owner = {},
                .revision = 0,
                .error = "not connected to " + bus_.describe() + " (reconnecting)"};
  }
  kvEntry* entry = nullptr;
  const natsStatus s = kvStore_Get(&entry, kv_, key.c_str());
  if (s == NATS_NOT_FOUND)
    return Read{.found = Found::kNone, .owner = {}, .revision = 0, .error = {}};
  if (s != NATS_OK) {
    return Read{.found = Found::kError,
                .owner = {},
                .revision = 0,
                .error = "reading key " + key + " from bucket '" + options_.bucket + "' on " +
                         bus_.describe() + ": " + NatsErrorText(s)};
  }
  Read read{.found = Found::kOwner, .owner = {}, .revision = kvEntry_Revision(entry), .error = {}};
  if (kvEntry_Operation(entry) != kvOp_Put) {
    read.found = Found::kNone;
  } else if (!Decode(kvEntry_Value(entry), kvEntry_ValueLen(entry), &read.owner)) {
    read.found = Found::kError;
    read.error =
        "key " + key + ": the entry in bucket '" + options_.bucket + "' is not a ZoneOwner";
  }
  kvEntry_Destroy(entry);
  return read;
}

LookupResult ZoneDirectory::Lookup(uint32_t zone_id, uint32_t cell) const {
  Read read = ReadKey(KeyOf(zone_id, cell));
  switch (read.found) {
    case Found::kOwner:
      return LookupResult{
          .status = LookupStatus::kFound, .owner = std::move(read.owner), .error = {}};
    case Found::kNone:
      return LookupResult{.status = LookupStatus::kNone, .owner = {}, .error = {}};
    case Found::kError:
      break;
  }
  return LookupResult{.status = LookupStatus::kError, .owner = {}, .error = read.error};
}

ClaimResult ZoneDirectory::ClaimOne(const ZoneClaim& zone, const ZoneOwner& owner, Held* held) {
  ZoneOwner mine = owner;
  mine.zone_id = zone.zone_id;
  *held = Held{.key = KeyOf(zone.zone_id, zone.cell),
               .label = ZoneLabel(zone),
               .value = Encode(mine),
               .revision = 0};
  const std::string& key = held->key;
  const std::string& label = held->label;
  const int len = static_cast<int>(held->value.size());
  for (int attempt = 0; attempt < kClaimAttempts; ++attempt) {
    natsStatus s = kvStore_Create(&held->revision, kv_, key.c_str(), held->value.data(), len);
    if (s == NATS_OK) return Claimed();
    const std::string create_error = NatsErrorText(s);
    const Read read = ReadKey(key);
    if (read.found == Found::kError) {
      std::string error = "cannot claim " + label + " on " + bus_.describe();
      error += ": " + create_error;
      error += "; " + read.error;
      return Fail(error);
    }
    if (read.found == Found::kNone) continue;  // expired or released meanwhile: create again
    if (read.owner.node != owner.node) {
      return Fail(label + " is already hosted by node '" + read.owner.node + "' at " +
                  read.owner.address);
    }
    // This node's previous process (a restart within the ttl): take its entry over.
    s = kvStore_Update(&held->revision, kv_, key.c_str(), held->value.data(), len, read.revision);
    if (s == NATS_OK) {
      spdlog::warn(
          "cluster: {} was still held by this node's previous process (started at {} ms, "
          "address {}); taken over",
          label, read.owner.started_ms, read.owner.address);
      return Claimed();
    }
  }
  return Fail("cannot claim " + label + ": its directory entry kept changing");
}

ClaimResult ZoneDirectory::Claim(const std::vector<ZoneClaim>& zones, const ZoneOwner& owner) {
  const std::lock_guard lock(mu_);
  if (!node_.empty() && node_ != owner.node) {
    return Fail("this directory already claims zones as node '" + node_ + "'");
  }
  std::vector<uint32_t> claimed_now;
  for (const ZoneClaim& zone : zones) {
    if (held_.contains(zone.zone_id)) continue;
    Held held;
    ClaimResult result = ClaimOne(zone, owner, &held);
    if (!result.ok) {
      for (const uint32_t z : claimed_now) {
        DeleteIfOurs(held_.at(z), owner.node);
        held_.erase(z);
      }
      spdlog::error("cluster: claim refused: {}", result.error);
      return result;
    }
    held_.emplace(zone.zone_id, std::move(held));
    claimed_now.push_back(zone.zone_id);
    spdlog::info("cluster: node '{}' hosts {} (clients: {})", owner.node, ZoneLabel(zone),
                 owner.address);
  }
  node_ = owner.node;
  StartHeartbeat();
  return Claimed();
}

void ZoneDirectory::StartHeartbeat() {
  if (heartbeat_.joinable()) return;
  stop_ = false;
  heartbeat_ = std::thread([this] { HeartbeatLoop(); });
}

void ZoneDirectory::StopHeartbeat() {
  {
    const std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
}

void ZoneDirectory::HeartbeatLoop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (wake_.wait_for(lock, interval_, [&] { return stop_; })) break;
    std::vector<std::pair<uint32_t, ZoneOwner>> lost = Beat();
    if (lost.empty() || !on_lost_) continue;
    lock.unlock();
    for (const auto& [zone, now] : lost) on_lost_(zone, now);
    lock.lock();
  }
}

std::vector<std::pair<uint32_t, ZoneOwner>> ZoneDirectory::Beat() {
  std::vector<std::pair<uint32_t, ZoneOwner>> lost;
  if (!bus_.connected()) {
    if (!outage_logged_) {
      spdlog::error(
          "cluster: cannot refresh {} zone claims: not connected to {}; they expire {} s after "
          "the last refresh unless NATS comes back",
          held_.size(), bus_.describe(), options_.ttl_seconds);
      outage_logged_ = true;
    }
    return lost;
  }
  if (outage_logged_)
    spdlog::info("cluster: NATS is back; refreshing {} zone claims", held_.size());
  outage_logged_ = false;
  for (auto it = held_.begin(); it != held_.end();) {
    Held& held = it->second;
    uint64_t revision = 0;  // libnats zeroes it on failure: keep held.revision until success
    const natsStatus s = kvStore_Update(&revision, kv_, held.key.c_str(), held.value.data(),
                                        static_cast<int>(held.value.size()), held.revision);
    if (s == NATS_OK) {
      held.revision = revision;
      ++it;
      continue;
    }
    ZoneOwner other;
    const Recovery recovery = Recover(&held, &other);
    if (recovery == Recovery::kLost) {
      lost.emplace_back(it->first, std::move(other));
      it = held_.erase(it);
      continue;
    }
    // NATS does not answer (a hung server: each call waits its timeout): the other zones would
    // only wait too, holding the lock. Next beat.
    if (recovery == Recovery::kUnreachable) break;
    ++it;
  }
  return lost;
}

ZoneDirectory::Recovery ZoneDirectory::Recover(Held* held, ZoneOwner* other) {
  const std::string& label = held->label;
  const std::string& key = held->key;
  const int len = static_cast<int>(held->value.size());
  const Read read = ReadKey(key);
  uint64_t revision = 0;
  natsStatus s = NATS_OK;
  switch (read.found) {
    case Found::kError:  // try again at the next beat; the entry may expire meanwhile
      spdlog::warn("cluster: heartbeat of {} failed: {}", label, read.error);
      return Recovery::kUnreachable;
    case Found::kNone:  // expired (an outage longer than the ttl): nobody took it, take it back
      s = kvStore_Create(&revision, kv_, key.c_str(), held->value.data(), len);
      break;
    case Found::kOwner:
      if (read.owner.node != node_) {
        *other = read.owner;
        spdlog::error(
            "cluster: LOST {}: node '{}' at {} holds it now (this node's heartbeat stopped "
            "for longer than the {} s ttl?); no longer refreshing it",
            label, read.owner.node, read.owner.address, options_.ttl_seconds);
        return Recovery::kLost;
      }
      s = kvStore_Update(&revision, kv_, key.c_str(), held->value.data(), len, read.revision);
      break;
  }
  if (s == NATS_OK) {
    held->revision = revision;
    spdlog::warn("cluster: {}: directory entry re-established after a failed heartbeat", label);
  } else {
    spdlog::warn("cluster: heartbeat of {} failed: {}", label, NatsErrorText(s));
  }
  return Recovery::kKept;
}

bool ZoneDirectory::DeleteIfOurs(const Held& held, const std::string& node) {
  const Read read = ReadKey(held.key);
  if (read.found == Found::kError) {
    spdlog::warn("cluster: cannot release {} (it expires within {} s): {}", held.label,
                 options_.ttl_seconds, read.error);
    return false;
  }
  if (read.found == Found::kNone || read.owner.node != node) return true;
  const natsStatus s = kvStore_Delete(kv_, held.key.c_str());
  if (s != NATS_OK) {
    spdlog::warn("cluster: cannot release {} (it expires within {} s): {}", held.label,
                 options_.ttl_seconds, NatsErrorText(s));
  }
  return s == NATS_OK;
}

void ZoneDirectory::Release() {
  StopHeartbeat();
  const std::lock_guard lock(mu_);
  size_t released = 0;
  for (const auto& [zone, held] : held_) {
    // On the first NATS error the rest are left to expire: each call would wait its timeout.
    if (!DeleteIfOurs(held, node_)) break;
    ++released;
  }
  if (!held_.empty()) {
    spdlog::info("cluster: node '{}' released {} of its {} zones (the rest expire within {} s)",
                 node_, released, held_.size(), options_.ttl_seconds);
  }
  held_.clear();
}

std::vector<uint32_t> ZoneDirectory::claimed() const {
  const std::lock_guard lock(mu_);
  std::vector<uint32_t> out;
  out.reserve(held_.size());
  for (const auto& [zone, held] : held_) out.push_back(zone);
  return out;
}

}  // namespace zs::cluster
