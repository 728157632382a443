# Layering (DESIGN.md), by includes: the pure layers (core, spatial, interest, zone) include no
# Boost, protobuf, spdlog, Asio or socket header, and no project header from a layer above them.
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

# Each pure layer and the project layers it may include ("core/...", "spatial/...", ...).
set(ZS_PURE_LAYERS core spatial interest zone)
set(ZS_ALLOWED_core core)
set(ZS_ALLOWED_spatial core spatial)
set(ZS_ALLOWED_interest core spatial interest)
set(ZS_ALLOWED_zone core spatial interest zone)
# Project layers a quoted include can name (everything under server/, and client_sim).
set(ZS_PROJECT_LAYERS core spatial interest zone wire auth net app storage cluster client_sim)
# Third-party and system headers no pure file may include.
set(ZS_FORBIDDEN_INCLUDE
    "[<\"](boost/|google/protobuf|spdlog/|asio|sys/socket\\.h|sys/un\\.h|sys/epoll\\.h|poll\\.h|netinet/|arpa/|netdb\\.h)|\\.pb\\.h[>\"]")

# Fails (FATAL_ERROR) listing every offending file and include line.
function(zs_check_layering source_dir)
  set(problems "")
  foreach(layer IN LISTS ZS_PURE_LAYERS)
    file(GLOB_RECURSE files "${source_dir}/server/${layer}/*.h" "${source_dir}/server/${layer}/*.cc")
    foreach(file IN LISTS files)
      file(RELATIVE_PATH rel "${source_dir}" "${file}")
      file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include")
      foreach(line IN LISTS lines)
        string(STRIP "${line}" line)
        if(line MATCHES "${ZS_FORBIDDEN_INCLUDE}")
          list(APPEND problems "${rel}: ${line} (the ${layer} layer is pure: no Boost, protobuf, spdlog, Asio or sockets)")
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
    message(FATAL_ERROR "Layering violation (DESIGN.md, server/LayeringCheck.cmake):\n  ${text}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  zs_check_layering("${ZS_SOURCE_DIR}")
  file(TOUCH "${ZS_STAMP}")
endif()
