# Writes `rtrace completion bash` into OUTPUT, whole or not at all (a failed run leaves no file
# that a later build would take for up to date).
#   cmake -DRTRACE=path/to/rtrace -DOUTPUT=file -P write_bash_completion.cmake
get_filename_component(directory "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${directory}")
execute_process(COMMAND "${RTRACE}" completion bash
                OUTPUT_FILE "${OUTPUT}.partial"
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE "${OUTPUT}.partial")
  message(FATAL_ERROR "${RTRACE} completion bash failed: ${status}")
endif()
file(RENAME "${OUTPUT}.partial" "${OUTPUT}")
