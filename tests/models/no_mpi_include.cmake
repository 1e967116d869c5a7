# cmake -DDIR=<folder> -P no_mpi_include.cmake
# Fails, naming file and line, when a C or C++ source under DIR includes an MPI header (<mpi.h>,
# "mpi.h", <mpi_proto.h>, <mpif.h>...). Also fails when DIR holds no sources, so a wrong path
# cannot pass silently.
if(NOT DEFINED DIR OR NOT IS_DIRECTORY "${DIR}")
  message(FATAL_ERROR "no_mpi_include.cmake: DIR='${DIR}' is not a folder")
endif()
file(GLOB_RECURSE sources LIST_DIRECTORIES false
  "${DIR}/*.h" "${DIR}/*.hpp" "${DIR}/*.c" "${DIR}/*.cpp" "${DIR}/*.cc" "${DIR}/*.inl")
list(LENGTH sources count)
if(count EQUAL 0)
  message(FATAL_ERROR "no_mpi_include.cmake: no sources under ${DIR}")
endif()
set(found "")
foreach(source IN LISTS sources)
  # Whole-text matching: file(STRINGS) would split lines on the ';' of C++ code.
  file(READ "${source}" text)
  string(REGEX MATCH "(^|\n)[ \t]*#[ \t]*include[ \t]*[<\"]mpi[^\n]*" hit "${text}")
  if(hit STREQUAL "")
    continue()
  endif()
  string(FIND "${text}" "${hit}" offset)
  string(SUBSTRING "${text}" 0 ${offset} before)
  string(REGEX MATCHALL "\n" newlines "${before}${hit}")
  list(LENGTH newlines line)
  math(EXPR line "${line} + 1")
  string(STRIP "${hit}" shown_line)
  file(RELATIVE_PATH shown "${DIR}" "${source}")
  string(APPEND found "  ${shown}:${line}: includes MPI: ${shown_line}\n")
endforeach()
if(NOT found STREQUAL "")
  message(FATAL_ERROR "MPI headers included under ${DIR} (models must stay pure C++):\n${found}")
endif()
message(STATUS "${count} sources under ${DIR}, none includes MPI")
