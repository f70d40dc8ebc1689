# cmake -DJSON_FILE=... [-DFIELDS=a;b] -P check_json.cmake: fails unless the file is JSON
# with the given top-level fields (default: those every papshim-bench result has).
if(NOT DEFINED FIELDS)
  set(FIELDS tool ranks mpi_library network results)
endif()
file(READ "${JSON_FILE}" _text)
foreach(_field IN LISTS FIELDS)
  string(JSON _value ERROR_VARIABLE _error GET "${_text}" ${_field})
  if(_error)
    message(FATAL_ERROR "${JSON_FILE}: ${_error}")
  endif()
endforeach()
string(JSON _suite ERROR_VARIABLE _error GET "${_text}" results suite)
if(_error)
  message(STATUS "${JSON_FILE}: valid JSON with ${FIELDS}")
elseif(_suite STREQUAL "sweep")
  # The sweep's numbers the plots need: tau per size, ratios per point and algorithm.
  foreach(_path "sizes;0;tau_s" "sizes;0;points;0;median_imbalance_factor"
                "sizes;0;points;0;algorithms;0;elapsed_ratio"
                "sizes;0;points;0;algorithms;0;excess_ratio")
    string(JSON _value ERROR_VARIABLE _error GET "${_text}" results ${_path})
    if(_error)
      message(FATAL_ERROR "${JSON_FILE}: ${_error}")
    endif()
  endforeach()
  message(STATUS "${JSON_FILE}: valid JSON, suite sweep")
else()
  message(STATUS "${JSON_FILE}: valid JSON, suite ${_suite}")
endif()
