# cmake -DJSON_FILE=... -P check_json.cmake: fails unless the file is JSON with the fields
# every papshim-bench result has.
file(READ "${JSON_FILE}" _text)
foreach(_field tool ranks mpi_library results)
  string(JSON _value ERROR_VARIABLE _error GET "${_text}" ${_field})
  if(_error)
    message(FATAL_ERROR "${JSON_FILE}: ${_error}")
  endif()
endforeach()
string(JSON _suite GET "${_text}" results suite)
message(STATUS "${JSON_FILE}: valid JSON, suite ${_suite}")
