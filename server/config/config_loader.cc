#include "config/config_loader.h"

#include <yaml-cpp/yaml.h>

#include "config/yaml_node.h"

#include "spatial/quadtree.h"
#include "zone/zone.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <ios>
#include <set>
#include <sstream>
#include <vector>

namespace zs::config {

using zone::MonsterTemplate;
using zone::Portal;
using zone::SkillDef;
using zone::SkillShape;
using zone::SpawnGroup;
using zone::WorldConfig;
using zone::Zone;
using zone::ZoneConfig;

YamlNode LoadYamlFile(const std::string& path) {
  // Read here, not by YAML::LoadFile: its stream throws std::ios_base::failure out of a
  // constructor on an unreadable file (a directory), leaking its buffer.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ConfigError(path + ": cannot read the file: it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot open the file");
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(path + ": cannot read the file");
  try {
    return YamlNode(YAML::Load(text.str()), path, "");
  } catch (const YAML::Exception& e) {
    throw ConfigError(path + ": line " + std::to_string(e.mark.line + 1) +
                      ": not valid YAML: " + e.msg);
  }
}

namespace {

constexpr uint64_t kMaxMonsters = 500000;  // half the id space; the rest is for players

YamlNode LoadFile(const std::filesystem::path& path) { return LoadYamlFile(path.string()); }

uint32_t Ticks(const YamlNode& seconds, uint32_t tick_rate) {
  return static_cast<uint32_t>(std::lround(seconds.Number(0, 86400) * tick_rate));
}

void LoadSkills(const YamlNode& file, uint32_t tick_rate, WorldConfig* w) {
  file.AllowOnly({"skills"});
  std::set<uint32_t> ids;
  for (const YamlNode& n : file["skills"].Seq(1)) {
    n.AllowOnly({"id", "name", "shape", "range", "half_angle_deg", "radius", "cast_range", "width",
                 "damage", "cooldown_seconds", "max_targets"});
    SkillDef s;
    s.id = static_cast<uint32_t>(n["id"].Int(1, 1000000));
    if (!ids.insert(s.id).second) n["id"].Fail("duplicate skill id " + std::to_string(s.id));
    s.name = n["name"].String();
    const std::string shape = n["shape"].String();
    if (shape == "arc") {
      s.shape = SkillShape::kArc;
      s.range = n["range"].Float(0.01, 1000);
      s.half_angle = n["half_angle_deg"].Float(0, 180) * kPi / 180.0f;
    } else if (shape == "circle") {
      s.shape = SkillShape::kCircle;
      s.radius = n["radius"].Float(0.01, 1000);
      s.cast_range = n.Has("cast_range") ? n["cast_range"].Float(0, 1000) : 0.0f;
    } else if (shape == "line") {
      s.shape = SkillShape::kLine;
      s.range = n["range"].Float(0.01, 1000);
      s.width = n["width"].Float(0, 1000);
    } else {
      n["shape"].Fail("must be arc, circle or line, got \"" + shape + "\"");
    }
    s.damage = static_cast<int32_t>(n["damage"].Int(0, 1000000));
    s.cooldown_ticks = Ticks(n["cooldown_seconds"], tick_rate);
    s.max_targets = static_cast<uint32_t>(n["max_targets"].Int(1, 1000));
    w->skills.push_back(s);
  }
}

void LoadMonsters(const YamlNode& file, WorldConfig* w) {
  file.AllowOnly({"monsters"});
  std::set<uint32_t> ids;
  for (const YamlNode& n : file["monsters"].Seq(1)) {
    n.AllowOnly({"id", "name", "radius", "max_hp", "walk_speed", "run_speed", "aggro_radius",
                 "leash_radius", "wander_radius", "skill"});
    MonsterTemplate m;
    m.id = static_cast<uint32_t>(n["id"].Int(1, 1000000));
    if (!ids.insert(m.id).second) n["id"].Fail("duplicate monster id " + std::to_string(m.id));
    m.name = n["name"].String();
    m.radius = n["radius"].Float(0, 100);
    m.max_hp = static_cast<int32_t>(n["max_hp"].Int(1, 1000000000));
    m.walk_speed = n["walk_speed"].Float(0, 1000);
    m.run_speed = n["run_speed"].Float(0.01, 1000);  // it must be able to get home
    m.aggro_radius = n["aggro_radius"].Float(0, 10000);
    m.leash_radius = n["leash_radius"].Float(0, 100000);
    m.wander_radius = n["wander_radius"].Float(0, 10000);
    if (m.wander_radius > 0 && m.walk_speed <= 0) {
      n["walk_speed"].Fail("must be above 0 when wander_radius is above 0");
    }
    if (m.aggro_radius > 0 && m.leash_radius < m.wander_radius + m.aggro_radius) {
      n["leash_radius"].Fail(
          "must be at least wander_radius + aggro_radius, or the monster "
          "gives up the moment it aggroes");
    }
    m.skill = static_cast<uint32_t>(n["skill"].Int(1, 1000000));
    if (w->FindSkill(m.skill) == nullptr) {
      n["skill"].Fail("no skill with id " + std::to_string(m.skill) + " in the skill table");
    }
    w->monsters.push_back(m);
  }
}

// The `interest:` block of a zone; every key optional (defaults in interest::InterestConfig).
interest::InterestConfig LoadInterest(const YamlNode& n, uint32_t tick_rate) {
  n.AllowOnly({"near_max", "mid_max", "tier_margin", "rank_floor", "near_band", "bytes_per_tick",
               "max_staleness_seconds", "mid_period_seconds", "summary_seconds", "summary_grid",
               "relevant_max"});
  interest::InterestConfig c;
  const auto count = [&n](const char* key, uint32_t fallback, int64_t lo, int64_t hi) {
    return n.Has(key) ? static_cast<uint32_t>(n[key].Int(lo, hi)) : fallback;
  };
  c.near_max = count("near_max", c.near_max, 1, 10000);
  c.mid_max = count("mid_max", c.mid_max, 0, 100000);
  c.tier_margin = count("tier_margin", c.tier_margin, 0, 10000);
  if (n.Has("rank_floor")) c.rank_floor = n["rank_floor"].Float(0, 100);
  if (n.Has("near_band")) c.near_band = n["near_band"].Float(0, 100);
  c.bytes_per_tick = count("bytes_per_tick", c.bytes_per_tick, 0, 1 << 20);
  c.summary_grid = count("summary_grid", c.summary_grid, 1, 64);
  c.relevant_max = count("relevant_max", c.relevant_max, 0, 1000);
  c.max_staleness_ticks = tick_rate;  // 1 s
  c.summary_interval_ticks = tick_rate;
  c.mid_period_ticks = std::max<uint32_t>(1, tick_rate / 5);  // 0.2 s
  if (n.Has("max_staleness_seconds")) {
    c.max_staleness_ticks = std::max<uint32_t>(1, Ticks(n["max_staleness_seconds"], tick_rate));
  }
  if (n.Has("mid_period_seconds")) {
    c.mid_period_ticks = std::max<uint32_t>(1, Ticks(n["mid_period_seconds"], tick_rate));
  }
  if (c.mid_period_ticks > c.max_staleness_ticks) {
    n[n.Has("mid_period_seconds") ? "mid_period_seconds" : "max_staleness_seconds"].Fail(
        "mid_period_seconds must not exceed max_staleness_seconds (the mid tier could not be "
        "sent in time)");
  }
  if (n.Has("summary_seconds")) {
    c.summary_interval_ticks = std::max<uint32_t>(1, Ticks(n["summary_seconds"], tick_rate));
  }
  return c;
}

// The world's `overload:` block; every key optional (defaults in interest::OverloadConfig).
interest::OverloadConfig LoadOverload(const YamlNode& n) {
  n.AllowOnly({"work_share", "trigger_ticks", "recover_ticks", "near_floor"});
  interest::OverloadConfig c;
  if (n.Has("work_share")) c.work_share = n["work_share"].Number(0.05, 1.0);
  if (n.Has("trigger_ticks"))
    c.trigger_ticks = static_cast<uint32_t>(n["trigger_ticks"].Int(1, 10000));
  if (n.Has("recover_ticks"))
    c.recover_ticks = static_cast<uint32_t>(n["recover_ticks"].Int(1, 100000));
  if (n.Has("near_floor")) c.near_floor = static_cast<uint32_t>(n["near_floor"].Int(1, 10000));
  return c;
}

// Columns or rows of a zone's cells: 1, 2 or 4 (so cell edges are quadtree node edges).
uint32_t CellsAlong(const YamlNode& n) {
  const auto v = static_cast<uint32_t>(n.Int(1, zone::kMaxCellsPerAxis));
  if ((v & (v - 1)) != 0) n.Fail("must be 1, 2 or 4 (cell edges are edges of the zone's quadtree)");
  return v;
}

// A zone's `cells:` block (zone/cells.h), read after the rest of the zone.
zone::CellLayout LoadCells(const YamlNode& n, uint32_t tick_rate, const WorldConfig& w,
                           const ZoneConfig& z) {
  n.AllowOnly(
      {"columns", "rows", "nodes", "ghost_distance", "ghost_timeout_seconds", "migration_margin"});
  zone::CellLayout c;
  c.columns = CellsAlong(n["columns"]);
  c.rows = CellsAlong(n["rows"]);
  if (!c.split()) n["columns"].Fail("a split needs at least 2 cells (columns x rows)");
  const std::vector<YamlNode> nodes = n["nodes"].Seq(1);
  if (nodes.size() != c.count()) {
    n["nodes"].Fail("needs one node per cell: " + std::to_string(c.count()) + ", got " +
                    std::to_string(nodes.size()));
  }
  std::set<std::string> seen;
  for (const YamlNode& node : nodes) {
    std::string name = node.String();
    if (name.empty() || name.size() > 128) node.Fail("must be a node name of 1..128 bytes");
    if (!seen.insert(name).second) node.Fail("a node owns at most one cell of a zone");
    c.nodes.push_back(std::move(name));
  }
  const float least = zone::MinGhostDistance(w, z);
  c.ghost_distance = least;
  if (n.Has("ghost_distance")) {
    c.ghost_distance = n["ghost_distance"].Float(0, 100000);
    if (c.ghost_distance < least) {
      n["ghost_distance"].Fail(
          "must be at least " + std::to_string(least) +
          " (view radius + hysteresis + the longest skill reach + one tick's longest step)");
    }
  }
  const Aabb one = zone::CellBounds(z.bounds, c, 0);
  if (one.Width() < c.ghost_distance || one.Height() < c.ghost_distance) {
    n.Fail("cells must be at least ghost_distance (" + std::to_string(c.ghost_distance) +
           ") wide and high: a ghost is sent only to the cells next to its own");
  }
  c.ghost_timeout_ticks = 2 * tick_rate;
  if (n.Has("ghost_timeout_seconds")) {
    c.ghost_timeout_ticks = std::max<uint32_t>(1, Ticks(n["ghost_timeout_seconds"], tick_rate));
  }
  // A migrant is at most the margin and one step inside its new cell, so the cell it left
  // still holds it as a ghost (ghost_distance covers one step already).
  c.migration_margin = std::min(zone::kDefaultMigrationMargin, c.ghost_distance / 2);
  if (n.Has("migration_margin")) {
    c.migration_margin = n["migration_margin"].Float(0, c.ghost_distance / 2);
  }
  return c;
}

ZoneConfig LoadZone(const YamlNode& n, uint32_t tick_rate, const WorldConfig& w) {
  n.AllowOnly({"id", "name", "bounds", "view_radius", "view_hysteresis", "pvp", "player_spawn",
               "spawn_groups", "portals", "interest", "chat_radius", "cells"});
  ZoneConfig z;
  z.id = static_cast<uint32_t>(n["id"].Int(1, 1000000));
  z.name = n["name"].String();
  z.bounds = n["bounds"].Rect();
  if (Status s = spatial::Quadtree::ValidateConfig(TreeConfigFor(z)); !s.ok()) {
    n["bounds"].Fail(std::string(s.message()));
  }
  z.view_radius = n["view_radius"].Float(1, 100000);
  z.view_hysteresis = n["view_hysteresis"].Float(0, 100000);
  z.pvp = n.Has("pvp") ? n["pvp"].Bool() : false;
  if (n.Has("chat_radius")) z.chat_radius = n["chat_radius"].Float(0.1f, 100000);
  z.interest.max_staleness_ticks = z.interest.summary_interval_ticks = tick_rate;
  z.interest.mid_period_ticks = std::max<uint32_t>(1, tick_rate / 5);  // 0.2 s
  if (n.Has("interest")) z.interest = LoadInterest(n["interest"], tick_rate);
  z.player_spawn = n["player_spawn"].Point();
  if (!z.bounds.Contains(z.player_spawn)) n["player_spawn"].Fail("must be inside the bounds");
  if (n.Has("spawn_groups")) {
    for (const YamlNode& g : n["spawn_groups"].Seq()) {
      g.AllowOnly({"monster", "count", "area", "respawn_seconds"});
      SpawnGroup s;
      s.monster = static_cast<uint32_t>(g["monster"].Int(1, 1000000));
      if (w.FindMonster(s.monster) == nullptr) {
        g["monster"].Fail("no monster template with id " + std::to_string(s.monster));
      }
      s.count = static_cast<uint32_t>(g["count"].Int(1, 100000));
      s.area = g["area"].Rect();
      if (!z.bounds.Contains(s.area.min) || !z.bounds.Contains(s.area.max)) {
        g["area"].Fail("must lie inside the zone bounds");
      }
      s.respawn_ticks = Ticks(g["respawn_seconds"], tick_rate);
      z.spawns.push_back(s);
    }
  }
  if (n.Has("portals")) {
    for (const YamlNode& p : n["portals"].Seq()) {
      p.AllowOnly({"area", "target_zone", "target_position"});
      Portal portal;
      portal.area = p["area"].Rect();
      portal.target_zone = static_cast<uint32_t>(p["target_zone"].Int(1, 1000000));
      portal.target_position = p["target_position"].Point();
      z.portals.push_back(portal);
    }
  }
  if (n.Has("cells")) z.cells = LoadCells(n["cells"], tick_rate, w, z);
  return z;
}

}  // namespace

WorldConfig LoadWorldConfig(const std::string& world_yaml_path) {
  const std::filesystem::path world_path(world_yaml_path);
  const std::filesystem::path dir = world_path.parent_path();
  const YamlNode root = LoadFile(world_path);
  root.AllowOnly({"tick_rate", "seed", "skills", "monsters", "player", "zones", "overload"});
  WorldConfig w;
  w.tick_rate = static_cast<uint32_t>(root["tick_rate"].Int(1, 120));
  w.seed = static_cast<uint64_t>(root["seed"].Int(0, INT64_MAX));
  if (root.Has("overload")) w.overload = LoadOverload(root["overload"]);
  LoadSkills(LoadFile(dir / root["skills"].String()), w.tick_rate, &w);
  LoadMonsters(LoadFile(dir / root["monsters"].String()), &w);

  const YamlNode player = root["player"];
  player.AllowOnly({"radius", "max_hp", "speed", "skills", "respawn_seconds"});
  w.player.radius = player["radius"].Float(0, 100);
  w.player.max_hp = static_cast<int32_t>(player["max_hp"].Int(1, 1000000000));
  w.player.speed = player["speed"].Float(0, 1000);
  const std::vector<YamlNode> skills = player["skills"].Seq(1);
  if (skills.size() > 4) player["skills"].Fail("at most 4 skills");
  for (const YamlNode& s : skills) {
    const auto id = static_cast<uint32_t>(s.Int(1, 1000000));
    if (w.FindSkill(id) == nullptr) s.Fail("no skill with id " + std::to_string(id));
    w.player.skills.push_back(id);
  }
  w.player.respawn_ticks = Ticks(player["respawn_seconds"], w.tick_rate);

  std::vector<YamlNode> zone_nodes;
  for (const YamlNode& f : root["zones"].Seq(1)) {
    const YamlNode zone = LoadFile(dir / f.String());
    zone_nodes.push_back(zone);
    w.zones.push_back(LoadZone(zone, w.tick_rate, w));
    for (size_t i = 0; i + 1 < w.zones.size(); ++i) {
      if (w.zones[i].id == w.zones.back().id) zone["id"].Fail("duplicate zone id");
    }
  }
  uint64_t monsters = 0;
  for (size_t zi = 0; zi < w.zones.size(); ++zi) {
    for (const SpawnGroup& g : w.zones[zi].spawns) monsters += g.count;
    if (monsters > kMaxMonsters) {
      zone_nodes[zi]["spawn_groups"].Fail(
          "more than " + std::to_string(kMaxMonsters) +
          " monsters in the world (entity ids are for players too)");
    }
  }
  // Portals can name any zone: check them once all zones are known.
  for (size_t zi = 0; zi < w.zones.size(); ++zi) {
    if (w.zones[zi].portals.empty()) continue;
    const std::vector<YamlNode> portals = zone_nodes[zi]["portals"].Seq();
    for (size_t pi = 0; pi < w.zones[zi].portals.size(); ++pi) {
      const Portal& p = w.zones[zi].portals[pi];
      const ZoneConfig* target = w.FindZone(p.target_zone);
      if (target == nullptr) {
        portals[pi]["target_zone"].Fail("no zone with id " + std::to_string(p.target_zone));
      }
      if (!target->bounds.Contains(p.target_position)) {
        portals[pi]["target_position"].Fail("must be inside the bounds of zone " +
                                            std::to_string(p.target_zone));
      }
      for (const Portal& back : target->portals) {
        if (back.area.Contains(p.target_position)) {
          portals[pi]["target_position"].Fail(
              "lands inside a portal of the target zone (players would bounce)");
        }
      }
    }
  }
  return w;
}

}  // namespace zs::config
