// WebAssets: the zone viewer's page (web/viewer/: index.html, viewer.css, viewer.js), read once
// at start-up and served from memory by AdminHttp.
//
// Only a fixed list of URL paths maps to a fixed list of files (kFiles), each with its
// Content-Type: nothing in a request ever becomes part of a file name, so there is no directory
// traversal to guard against. The files are looked for, in order, in: the configured directory
// (admin.web_dir), <binary dir>/../share/zone_server/web/viewer (the Docker image and an
// install), and the source tree the binary was built from (a development build and the tests).
// Thread: Load once before serving; Find from any thread afterwards (read-only).
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zs::admin {

class WebAssets {
 public:
  struct Asset {
    std::string_view url;           // request path (no query)
    std::string_view file;          // in the directory
    std::string_view content_type;  // Content-Type header
    std::string body = {};          // filled by Load
  };
  static constexpr size_t kMaxFileBytes = 1 << 20;

  // Reads every file from the first of `dirs` that has them all; false (and `error` says what
  // was looked for) when none does. Files over kMaxFileBytes count as missing.
  bool Load(const std::vector<std::filesystem::path>& dirs, std::string* error);

  // The asset served at `url` (path only), or null.
  [[nodiscard]] const Asset* Find(std::string_view url) const;
  [[nodiscard]] bool loaded() const { return loaded_; }
  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }

 private:
  static bool ReadAll(const std::filesystem::path& dir, std::array<Asset, 4>* assets);

  std::array<Asset, 4> assets_ = {{
      {.url = "/viewer", .file = "index.html", .content_type = "text/html; charset=utf-8"},
      {.url = "/viewer/", .file = "index.html", .content_type = "text/html; charset=utf-8"},
      {.url = "/viewer/viewer.js",
       .file = "viewer.js",
       .content_type = "text/javascript; charset=utf-8"},
      {.url = "/viewer/viewer.css",
       .file = "viewer.css",
       .content_type = "text/css; charset=utf-8"},
  }};
  bool loaded_ = false;
  std::filesystem::path dir_;
};

}  // namespace zs::admin
