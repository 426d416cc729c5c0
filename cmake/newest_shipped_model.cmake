# newest_shipped_model(FOLDER OUT_NAME OUT_FILES): the newest shipped version in FOLDER (the
# highest N of FOLDER/popucom-<preset>-vN.onnx, as popucom/weights.py's NAME_PATTERN reads the
# names) and every file of it (FOLDER/NAME.*); both empty when FOLDER holds none.
# CMakeLists.txt installs them with the package; tests/core/test_packaging.py runs it with
# `cmake -P` on folders of its own.
function(newest_shipped_model folder out_name out_files)
  file(GLOB models RELATIVE "${folder}" "${folder}/popucom-*-v*.onnx")
  set(newest_version -1)
  set(newest "")
  foreach(model IN LISTS models)
    if(model MATCHES "^(popucom-[a-z0-9]+-v([0-9]+))\\.onnx$")
      set(name "${CMAKE_MATCH_1}")
      set(version "${CMAKE_MATCH_2}")
      # A version whose ship did not finish (popucom/weights.py staging_dir) is not installed.
      if(version GREATER newest_version AND NOT EXISTS "${folder}/.${name}.shipping")
        set(newest_version "${version}")
        set(newest "${name}")
      endif()
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
