// YamlNode: a yaml-cpp node plus the file and key path it came from, so every config error
// can say "file: key: problem". Shared by the world loader and the server's config.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "config/config_loader.h"
#include "core/shapes.h"

namespace zs::config {

// A YAML node plus where it came from, so every error can say "file: key: problem".
class YamlNode {
 public:
  YamlNode(const YAML::Node& node, std::string file, std::string path)
      : node_(node), file_(std::move(file)), path_(std::move(path)) {}

  [[noreturn]] void Fail(const std::string& what) const {
    throw ConfigError(file_ + ": " + (path_.empty() ? "(top level)" : path_) + ": " + what);
  }

  [[nodiscard]] bool Has(const std::string& key) const {
    return node_.IsMap() && node_[key].IsDefined() && !node_[key].IsNull();
  }
  [[nodiscard]] YamlNode operator[](const std::string& key) const {
    if (!node_.IsMap()) Fail("must be a mapping");
    if (!Has(key)) Child(key).Fail("missing (required)");
    return Child(key);
  }
  // Rejects keys not in `allowed` (catches typos such as "respwan_seconds").
  void AllowOnly(std::initializer_list<const char*> allowed) const {
    if (!node_.IsMap()) Fail("must be a mapping");
    for (const auto& kv : node_) {
      // A list, map or null as a key (`? [a, b]: 1`) has no name: as<std::string>() would throw
      // YAML::BadConversion, which is not a ConfigError.
      if (!kv.first.IsScalar()) Fail("keys must be plain names, not a list, map or null");
      const std::string key = kv.first.Scalar();
      bool ok = false;
      for (const char* a : allowed) ok = ok || key == a;
      if (!ok) Child(key).Fail("unknown key");
    }
  }
  [[nodiscard]] std::vector<YamlNode> Seq(size_t min_size = 0) const {
    if (!node_.IsSequence()) Fail("must be a list");
    if (node_.size() < min_size) Fail("needs at least " + std::to_string(min_size) + " entries");
    std::vector<YamlNode> out;
    for (size_t i = 0; i < node_.size(); ++i) {
      out.emplace_back(node_[i], file_, path_ + "[" + std::to_string(i) + "]");
    }
    return out;
  }

  [[nodiscard]] std::string String() const {
    if (!node_.IsScalar()) Fail("must be a string");
    return node_.Scalar();
  }
  [[nodiscard]] double Number(double lo, double hi) const {
    const std::string text = node_.IsScalar() ? node_.Scalar() : std::string("<not a number>");
    double v = 0;
    size_t used = 0;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() || !std::isfinite(v) || v < lo || v > hi) {
      std::ostringstream msg;
      msg << "must be a number in " << lo << ".." << hi << ", got \"" << text << "\"";
      Fail(msg.str());
    }
    return v;
  }
  [[nodiscard]] float Float(double lo, double hi) const {
    return static_cast<float>(Number(lo, hi));
  }
  [[nodiscard]] int64_t Int(int64_t lo, int64_t hi) const {
    const std::string text = node_.IsScalar() ? node_.Scalar() : std::string("<not a number>");
    int64_t v = 0;
    size_t used = 0;
    try {
      v = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() || v < lo || v > hi) {
      Fail("must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got \"" +
           text + "\"");
    }
    return v;
  }
  [[nodiscard]] bool Bool() const {
    const std::string text = node_.IsScalar() ? node_.Scalar() : "";
    if (text == "true") return true;
    if (text == "false") return false;
    Fail("must be true or false, got \"" + text + "\"");
  }
  [[nodiscard]] Vec2 Point(double limit = 1e6) const {
    const std::vector<YamlNode> xy = Seq();
    if (xy.size() != 2) Fail("must be a list of two numbers [x, y]");
    return {xy[0].Float(-limit, limit), xy[1].Float(-limit, limit)};
  }
  [[nodiscard]] Aabb Rect() const {
    AllowOnly({"min", "max"});
    const Aabb r{(*this)["min"].Point(), (*this)["max"].Point()};
    if (!(r.min.x < r.max.x) || !(r.min.y < r.max.y)) Fail("min must be below max on both axes");
    return r;
  }
  [[nodiscard]] const std::string& file() const { return file_; }

 private:
  [[nodiscard]] YamlNode Child(const std::string& key) const {
    return YamlNode(node_.IsMap() ? node_[key] : YAML::Node(), file_,
                    path_.empty() ? key : path_ + "." + key);
  }

  YAML::Node node_;
  std::string file_;
  std::string path_;
};

// Loads a YAML file; a missing file or bad syntax is a ConfigError naming the file.
YamlNode LoadYamlFile(const std::string& path);

}  // namespace zs::config
