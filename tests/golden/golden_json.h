// The golden streams' JSON (tests/golden/README.md): a client's store and events as the streams
// write them, and base64 for the recorded bytes. Shared by the recorder (record_golden.cc) and
// the C++ client library's replay test (golden_test.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "zs_client/entity_store.h"
#include "zs_client/events.h"

namespace zs::golden {

inline constexpr int kFormat = 1;

[[nodiscard]] nlohmann::json StoreJson(const client::EntityStore& store);
[[nodiscard]] nlohmann::json EventsJson(const std::vector<client::Event>& events);

// RFC 4648 base64 with padding (OpenSSL's EVP_EncodeBlock / EVP_DecodeBlock).
[[nodiscard]] std::string Base64(std::string_view bytes);
// Throws std::runtime_error on text that is not base64.
[[nodiscard]] std::string FromBase64(std::string_view text);

}  // namespace zs::golden
