# The builds of collsel's MPI parts for the other MPIs, made by the primary (MPICH) build, so that
# `cmake --build build` builds them and its CTest runs their tests:
#   build/smpi   COLLSEL_MPI=smpi (SimGrid's SMPI, when smpicc is installed): libcollsel-smpi.so and
#                the SMPI programs (the selection benchmark, collsel-calibrate, the differential
#                checker, the example), for tools/simcluster (docs/SIMULATION.md)
# Each is a configure of this same source tree with another COLLSEL_MPI that builds only the
# targets below; its tests are declared here, in the primary build (tests/smpi).
include(ExternalProject)

find_program(COLLSEL_SMPICC smpicc)
if(COLLSEL_SMPICC)
  set(COLLSEL_SMPI_BUILD_DIR ${PROJECT_BINARY_DIR}/smpi)
  # Release without debug information: smpirun copies the program and the shim once per simulated
  # rank (1024 copies at 1024 ranks), so they are kept small.
  ExternalProject_Add(collsel_smpi
    SOURCE_DIR ${PROJECT_SOURCE_DIR}
    BINARY_DIR ${COLLSEL_SMPI_BUILD_DIR}
    CMAKE_ARGS -DCOLLSEL_MPI=smpi -DCMAKE_BUILD_TYPE=Release
               -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER} -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
    BUILD_COMMAND $(MAKE) collsel selection collsel-calibrate differential examples
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON)
else()
  message(STATUS "smpicc not found (Debian: libsimgrid-dev): no SMPI build, the simulation tests "
                 "are skipped")
endif()
