# cmake -DPLOT_DIR=... -DCOUNT=N -P check_plots.cmake: fails unless papshim-bench --plot left
# N non-empty sweep-*.png files (and its sweep.json) in PLOT_DIR.
file(GLOB _pngs "${PLOT_DIR}/sweep-*.png")
list(LENGTH _pngs _count)
if(NOT _count EQUAL COUNT OR NOT EXISTS "${PLOT_DIR}/sweep.json")
  message(FATAL_ERROR "${PLOT_DIR}: expected ${COUNT} sweep-*.png and sweep.json, found ${_count} PNGs")
endif()
foreach(_png IN LISTS _pngs)
  file(SIZE "${_png}" _bytes)
  if(_bytes LESS 1000)
    message(FATAL_ERROR "${_png}: only ${_bytes} bytes")
  endif()
endforeach()
message(STATUS "${PLOT_DIR}: ${_count} plots")
