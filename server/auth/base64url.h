// base64url without padding (RFC 4648 section 5): how tokens carry bytes in ASCII.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace zs::auth {

[[nodiscard]] std::string Base64UrlEncode(std::string_view bytes);
// Strict: only the url-safe alphabet, no padding, no whitespace, and no leftover bits (so each
// byte string has exactly one encoding). nullopt otherwise.
[[nodiscard]] std::optional<std::string> Base64UrlDecode(std::string_view text);

}  // namespace zs::auth
