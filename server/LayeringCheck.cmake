# Layering (docs/architecture.md), by includes: no file includes a project header of a higher
# floor or of a sibling on its own floor; the pure layers (core, spatial, interest, zone)
# include no Boost, protobuf, spdlog, Asio or socket header; host includes no Asio, Beast or
# socket header.
# The link check in CMakeLists.txt cannot see a header-only dependency; this one reads the
# `#include` lines themselves.
#
# Used two ways:
#   include(server/LayeringCheck.cmake) + zs_check_layering(<source dir>)   at configure time;
#   cmake -DZS_SOURCE_DIR=<dir> -DZS_STAMP=<file> -P LayeringCheck.cmake
#                                                               at build time, so an include
#                                                               added after configuring fails
#                                                               the next build.
if(CMAKE_SCRIPT_MODE_FILE)
  cmake_policy(VERSION 3.25)
endif()

# The floors, bottom to top (docs/architecture.md):
#   {core, names} < spatial < interest < zone < {wire, storage, auth} < host < {net, admin, cluster,
#   agones} < config < app;  client_sim beside them, on core, names and wire (and auth: its
#   bots sign login tokens as a studio's login service would).
# Each layer and the project layers it may include ("core/...", "spatial/...", ...): its own
# floor's siblings are not listed, so no sibling includes another.
set(ZS_LAYERS core names spatial interest zone wire storage auth host net admin cluster agones config app
              client_sim)
set(ZS_PURE_LAYERS core spatial interest zone)
set(ZS_ALLOWED_core core)
# names: the Unicode rules for player names (ICU), below everything that reads a name.
set(ZS_ALLOWED_names names)
set(ZS_ALLOWED_spatial core spatial)
set(ZS_ALLOWED_interest core spatial interest)
set(ZS_ALLOWED_zone core spatial interest zone)
set(zs_sim core spatial interest zone)
set(ZS_ALLOWED_wire ${zs_sim} names wire)
set(ZS_ALLOWED_storage ${zs_sim} names storage)
# auth reads the player names in tokens (names/player_name.h).
set(ZS_ALLOWED_auth ${zs_sim} names auth)
set(zs_below_host ${zs_sim} names wire storage auth)
set(ZS_ALLOWED_host ${zs_below_host} host)
set(ZS_ALLOWED_net ${zs_below_host} host net)
set(ZS_ALLOWED_admin ${zs_below_host} host admin)
set(ZS_ALLOWED_cluster ${zs_below_host} host cluster)
set(ZS_ALLOWED_agones core agones)
set(ZS_ALLOWED_config ${zs_below_host} host net admin cluster agones config)
set(ZS_ALLOWED_app ${ZS_LAYERS})
list(REMOVE_ITEM ZS_ALLOWED_app client_sim)
set(ZS_ALLOWED_client_sim core names wire auth client_sim)
# Project layers a quoted include can name (everything under server/, and client_sim).
set(ZS_PROJECT_LAYERS ${ZS_LAYERS})
# Third-party and system headers no pure file may include.
set(ZS_FORBIDDEN_INCLUDE
    "[<\"](boost/|google/protobuf|spdlog/|asio|sys/socket\\.h|sys/un\\.h|sys/epoll\\.h|poll\\.h|netinet/|arpa/|netdb\\.h)|\\.pb\\.h[>\"]")
# host runs zones and routes players without touching a socket: no Asio, Beast or socket header.
set(ZS_FORBIDDEN_HOST_INCLUDE
    "[<\"](boost/asio|boost/beast|asio|sys/socket\\.h|sys/un\\.h|sys/epoll\\.h|poll\\.h|netinet/|arpa/|netdb\\.h)")

# The directory of a layer (client_sim sits beside server/).
function(zs_layer_dir source_dir layer out)
  if(layer STREQUAL "client_sim")
    set(${out} "${source_dir}/client_sim" PARENT_SCOPE)
  else()
    set(${out} "${source_dir}/server/${layer}" PARENT_SCOPE)
  endif()
endfunction()

# Fails (FATAL_ERROR) listing every offending file and include line.
function(zs_check_layering source_dir)
  set(problems "")
  foreach(layer IN LISTS ZS_LAYERS)
    zs_layer_dir("${source_dir}" ${layer} dir)
    file(GLOB_RECURSE files "${dir}/*.h" "${dir}/*.cc")
    foreach(file IN LISTS files)
      file(RELATIVE_PATH rel "${source_dir}" "${file}")
      file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include")
      foreach(line IN LISTS lines)
        string(STRIP "${line}" line)
        if(layer IN_LIST ZS_PURE_LAYERS AND line MATCHES "${ZS_FORBIDDEN_INCLUDE}")
          list(APPEND problems "${rel}: ${line} (the ${layer} layer is pure: no Boost, protobuf, spdlog, Asio or sockets)")
        elseif(layer STREQUAL "host" AND line MATCHES "${ZS_FORBIDDEN_HOST_INCLUDE}")
          list(APPEND problems "${rel}: ${line} (host never touches a socket: no Asio, Beast or socket header)")
        elseif(line MATCHES "\"([a-z_]+)/[^\"]*\"")
          set(target_layer "${CMAKE_MATCH_1}")
          if(target_layer IN_LIST ZS_PROJECT_LAYERS AND NOT target_layer IN_LIST ZS_ALLOWED_${layer})
            list(APPEND problems "${rel}: ${line} (${layer} may include only: ${ZS_ALLOWED_${layer}})")
          endif()
        endif()
      endforeach()
    endforeach()
  endforeach()
  if(problems)
    list(JOIN problems "\n  " text)
    message(FATAL_ERROR "Layering violation (docs/architecture.md, server/LayeringCheck.cmake):\n  ${text}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  zs_check_layering("${ZS_SOURCE_DIR}")
  file(TOUCH "${ZS_STAMP}")
endif()
