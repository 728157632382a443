// Loads a WorldConfig from the YAML files under config/ (world.yaml names the others).
//
// Every value is checked: type, range, references between files (skill and monster ids, zone
// ids, portal targets), unknown keys (typos). A bad file is refused with a ConfigError whose
// message names the file, the key and what is wrong, e.g.
//   config/zones/field.yaml: spawn_groups[2].count: must be an integer in 1..100000, got "-5"
// Exceptions are the error path here: this runs once, at start-up.
#pragma once

#include <stdexcept>
#include <string>

#include "zone/world_config.h"

namespace zs::config {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// REQUIRES: nothing; throws ConfigError for any problem with the files.
zone::WorldConfig LoadWorldConfig(const std::string& world_yaml_path);

}  // namespace zs::config
