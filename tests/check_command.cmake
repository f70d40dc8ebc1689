# A command's exit status and stderr: run as
#   cmake "-DCOMMAND=prog|arg|..." -DRC=2 "-DSTDERR=regex" [-DLINES=1] -P check_command.cmake
# COMMAND's words are separated by '|' (add_test would split a ';' list). STDERR must match
# the whole of stderr's first line (';' in it as '.'); LINES, if given, is stderr's line count;
# STDOUT, if given, must match somewhere in stdout.
string(REPLACE "|" ";" command "${COMMAND}")
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REPLACE "|" " " shown "${COMMAND}")
if(NOT rc STREQUAL "${RC}")
  message(FATAL_ERROR "${shown}: exit status ${rc}, expected ${RC}\nstdout: ${out}\nstderr: ${err}")
endif()
string(REGEX MATCHALL "\n" breaks "${err}")
list(LENGTH breaks count)
if(DEFINED LINES AND NOT count EQUAL LINES)
  message(FATAL_ERROR "${shown}: ${count} lines on stderr, expected ${LINES}\nstderr: ${err}")
endif()
string(FIND "${err}" "\n" end)
string(SUBSTRING "${err}" 0 ${end} first)
if(NOT first MATCHES "^${STDERR}$")
  message(FATAL_ERROR "${shown}: stderr's first line\n  ${first}\ndoes not match\n  ${STDERR}")
endif()
if(DEFINED STDOUT AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "${shown}: stdout does not match\n  ${STDOUT}\nstdout: ${out}")
endif()
message(STATUS "${shown}: exit ${rc}, stderr: ${first}")
