# arena_layer(NAME [UNDER DIR] [SOURCES f...] [EXCLUDE regex...] [SEES path...] [FACE path...]
#             [DEPS target...] [PRIVATE_DEPS target...]):
# one static library per layer, from every .cpp under the current folder (or under DIR, or the
# given SOURCES; globbed, so adding a file needs no CMake edit).
#
# The layer table is enforced by the include path. A layer's sources see only SEES (folders or
# files relative to the project root; default: the layer's own folder) and the FACE of what they
# link; its dependents see only its FACE (default: its own folder). Each set is a generated tree of
# symbolic links under <build>/layers/NAME/, so `#include "engine/core/scheduler.h"` in agents/
# fails to compile: only the files engine's FACE lists are there. DEPS are public (their faces are
# re-exported, as this layer's headers include theirs); PRIVATE_DEPS are linked, not re-exported.
# scripts/check_layers.sh checks the same table over the sources, for what a path cannot catch.

# Fills `dir` with symbolic links to the project paths given (folders or single files).
function(arena_include_tree dir)
  file(REMOVE_RECURSE ${dir})  # removes the links, never what they point to
  file(MAKE_DIRECTORY ${dir})
  foreach(path IN LISTS ARGN)
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${path})
      message(FATAL_ERROR "arena_include_tree: ${path} does not exist")
    endif()
    get_filename_component(parent ${dir}/${path} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${path} ${dir}/${path} SYMBOLIC)
  endforeach()
endfunction()

function(arena_layer name)
  cmake_parse_arguments(ARG "" "UNDER" "DEPS;PRIVATE_DEPS;EXCLUDE;SOURCES;SEES;FACE" ${ARGN})
  file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  set(root ${CMAKE_CURRENT_SOURCE_DIR})
  if(ARG_UNDER)
    set(root ${CMAKE_CURRENT_SOURCE_DIR}/${ARG_UNDER})
  endif()
  if(ARG_SOURCES)
    set(sources ${ARG_SOURCES})
  else()
    file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${root}/*.cpp)
  endif()
  foreach(pattern IN LISTS ARG_EXCLUDE)
    list(FILTER sources EXCLUDE REGEX "${pattern}")
  endforeach()
  if(NOT ARG_SEES)
    set(ARG_SEES ${folder})
  endif()
  if(NOT ARG_FACE)
    set(ARG_FACE ${folder})
  endif()
  set(tree ${PROJECT_BINARY_DIR}/layers/${name})
  arena_include_tree(${tree}/sees ${ARG_SEES})
  arena_include_tree(${tree}/face ${ARG_FACE})

  if(sources)
    add_library(${name} STATIC ${sources})
    target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS} arena_options)
    target_include_directories(${name} PRIVATE ${tree}/sees INTERFACE ${tree}/face)
  else()
    add_library(${name} INTERFACE)
    target_link_libraries(${name} INTERFACE ${ARG_DEPS} ${ARG_PRIVATE_DEPS})
    target_include_directories(${name} INTERFACE ${tree}/face)
  endif()
  # Files named *_avx2.cpp / *_avx512.cpp / *_avx512bw.cpp / *_avx512bf16.cpp hold SIMD paths chosen at run time.
  foreach(src IN LISTS sources)
    if(src MATCHES "_avx2\\.cpp$")
      set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma;-mf16c")
    elseif(src MATCHES "_avx512\\.cpp$")
      set_source_files_properties(${src} PROPERTIES
        COMPILE_OPTIONS "-mavx512f;-mavx512bw;-mavx512vl;-mavx512dq;-mavx512vnni;-mfma;-mf16c")
    elseif(src MATCHES "_avx512bw\\.cpp$")  # AVX-512 without VNNI
      set_source_files_properties(${src} PROPERTIES
        COMPILE_OPTIONS "-mavx512f;-mavx512bw;-mavx512vl;-mavx512dq;-mfma;-mf16c")
    elseif(src MATCHES "_avx512bf16\\.cpp$")
      set_source_files_properties(${src} PROPERTIES
        COMPILE_OPTIONS "-mavx512f;-mavx512bw;-mavx512vl;-mavx512dq;-mavx512bf16;-mfma;-mf16c")
    endif()
  endforeach()
endfunction()
