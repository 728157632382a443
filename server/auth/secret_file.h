// ReadSecretFile: the token secret in a file, read one way for everyone who signs or checks
// tokens (the server's auth.secret_file, `zone_server token`, client_sim's bots): the whole
// file less one trailing newline (what `echo` or `base64` leave). nullopt when it cannot be
// read. The caller checks the length (kMinSecretBytes).
#pragma once

#include <fstream>
#include <iterator>
#include <optional>
#include <string>

namespace zs::auth {

[[nodiscard]] inline std::optional<std::string> ReadSecretFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string secret(std::istreambuf_iterator<char>(in), {});
  if (secret.ends_with('\n')) secret.pop_back();
  return secret;
}

}  // namespace zs::auth
