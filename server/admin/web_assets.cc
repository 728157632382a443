#include "admin/web_assets.h"

#include <fstream>
#include <sstream>
#include <system_error>

namespace zs::admin {

bool WebAssets::ReadAll(const std::filesystem::path& dir, std::array<Asset, 4>* assets) {
  for (Asset& a : *assets) {
    const std::filesystem::path p = dir / a.file;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) return false;
    const auto size = std::filesystem::file_size(p, ec);
    if (ec || size > kMaxFileBytes) return false;
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    if (!in) return false;
    a.body = s.str();
  }
  return true;
}

bool WebAssets::Load(const std::vector<std::filesystem::path>& dirs, std::string* error) {
  for (const std::filesystem::path& dir : dirs) {
    if (dir.empty()) continue;
    std::array<Asset, 4> read = assets_;
    if (ReadAll(dir, &read)) {
      assets_ = std::move(read);
      dir_ = dir;
      loaded_ = true;
      return true;
    }
  }
  std::string looked;
  for (const std::filesystem::path& dir : dirs) {
    if (!dir.empty()) looked += (looked.empty() ? "" : ", ") + dir.string();
  }
  *error = "viewer files (index.html, viewer.css, viewer.js) not found in: " + looked;
  return false;
}

const WebAssets::Asset* WebAssets::Find(std::string_view url) const {
  if (!loaded_) return nullptr;
  for (const Asset& a : assets_) {
    if (a.url == url) return &a;
  }
  return nullptr;
}

}  // namespace zs::admin
