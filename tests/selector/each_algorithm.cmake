# Included by the generated differential matrices at CTest time (tests/selector, tests/openmpi):
# calls `callback(coll COLL algorithm)` for every registered algorithm listed in `list_file`
# (list_algorithms' output, "coll name" per line), so each matrix says only how it runs one.
function(collsel_each_algorithm list_file callback)
  file(STRINGS "${list_file}" entries)
  foreach(entry IN LISTS entries)
    string(REPLACE " " ";" parts "${entry}")
    list(GET parts 0 coll)
    list(GET parts 1 algorithm)
    string(TOUPPER "${coll}" COLL)
    cmake_language(CALL ${callback} ${coll} ${COLL} ${algorithm})
  endforeach()
endfunction()
