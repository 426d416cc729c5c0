# newest_shipped_model(FOLDER OUT_NAME OUT_FILES): the version `best` plays in FOLDER, as
# popucom/weights.py's newest_model finds it (the highest N of FOLDER/popucom-<preset>-vN.onnx
# among the versions of one preset: its BEST_PRESET, else the only preset there), and every
# file of it (FOLDER/NAME.*); both empty when FOLDER holds none, or only several other presets.
# CMakeLists.txt installs them with the package; tests/core/test_packaging.py runs it with
# `cmake -P` on folders of its own.
set(_weights_py "${CMAKE_CURRENT_LIST_DIR}/../popucom/weights.py")

function(newest_shipped_model folder out_name out_files)
  file(STRINGS "${_weights_py}" best_line REGEX "^BEST_PRESET = \"[a-z0-9]+\"$")
  string(REGEX REPLACE "^BEST_PRESET = \"([a-z0-9]+)\"$" "\\1" best_preset "${best_line}")
  if(NOT best_preset)
    message(FATAL_ERROR "no BEST_PRESET = \"<preset>\" line in ${_weights_py}")
  endif()
  file(GLOB models RELATIVE "${folder}" "${folder}/popucom-*-v*.onnx")
  set(shipped "")  # preset;version;name triples of the finished versions
  set(presets "")
  foreach(model IN LISTS models)
    if(model MATCHES "^(popucom-([a-z0-9]+)-v([0-9]+))\\.onnx$")
      # A version whose ship did not finish (popucom/weights.py staging_dir) is not installed.
      if(NOT EXISTS "${folder}/.${CMAKE_MATCH_1}.shipping")
        list(APPEND shipped "${CMAKE_MATCH_2}:${CMAKE_MATCH_3}:${CMAKE_MATCH_1}")
        list(APPEND presets "${CMAKE_MATCH_2}")
      endif()
    endif()
  endforeach()
  list(REMOVE_DUPLICATES presets)
  list(LENGTH presets preset_count)
  list(FIND presets "${best_preset}" best_index)  # not IN_LIST: `cmake -P` runs without policy CMP0057
  set(chosen "")
  if(best_index GREATER -1)
    set(chosen "${best_preset}")
  elseif(preset_count EQUAL 1)
    set(chosen "${presets}")
  elseif(preset_count GREATER 1)
    message(WARNING "${folder} holds versions of the presets ${presets}, but none of ${best_preset}: "
                    "version numbers only rank versions of one preset, so none is installed")
  endif()
  set(newest_version -1)
  set(newest "")
  foreach(entry IN LISTS shipped)
    string(REPLACE ":" ";" fields "${entry}")
    list(GET fields 0 preset)
    list(GET fields 1 version)
    list(GET fields 2 name)
    if(preset STREQUAL chosen AND version GREATER newest_version)
      set(newest_version "${version}")
      set(newest "${name}")
    endif()
  endforeach()
  set(files "")
  if(newest)
    file(GLOB files "${folder}/${newest}.*")
    list(SORT files)
  endif()
  set(${out_name} "${newest}" PARENT_SCOPE)
  set(${out_files} "${files}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)  # cmake -DFOLDER=... -P this file
  newest_shipped_model("${FOLDER}" name files)
  message("name=${name}")
  foreach(file IN LISTS files)
    message("file=${file}")
  endforeach()
endif()
