# The builds of collsel's MPI parts for the other MPIs, made by the primary (MPICH) build, so that
# `cmake --build build` builds them and its CTest runs their tests:
#   build/openmpi  COLLSEL_MPI=openmpi (Open MPI 4.1.4, when mpicxx.openmpi is installed):
#                libcollsel-openmpi.so, the differential checker, the end-to-end programs,
#                bench/bcast_latency, the selection benchmark and collsel-calibrate (for the
#                emulated cluster under Open MPI: emucluster mpiexec --openmpi), built with Open
#                MPI's wrappers (tests/openmpi)
#   build/smpi   COLLSEL_MPI=smpi (SimGrid's SMPI, when smpicc is installed): libcollsel-smpi.so and
#                the SMPI programs (the selection benchmark, collsel-calibrate, the differential
#                checker, the example), for tools/simcluster (docs/SIMULATION.md)
# Each is a configure of this same source tree with another COLLSEL_MPI that builds only the
# targets below; its tests are declared here, in the primary build (tests/smpi).
include(ExternalProject)

find_program(COLLSEL_OMPI_MPICXX mpicxx.openmpi)
if(COLLSEL_OMPI_MPICXX)
  set(COLLSEL_OPENMPI_BUILD_DIR ${PROJECT_BINARY_DIR}/openmpi)
  ExternalProject_Add(collsel_openmpi
    SOURCE_DIR ${PROJECT_SOURCE_DIR}
    BINARY_DIR ${COLLSEL_OPENMPI_BUILD_DIR}
    CMAKE_ARGS -DCOLLSEL_MPI=openmpi -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
               -DCMAKE_INSTALL_PREFIX=${CMAKE_INSTALL_PREFIX}
               -DCOLLSEL_CONF_INSTALL_DIR=${COLLSEL_CONF_INSTALL_DIR}
               -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER} -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
               -DCMAKE_Fortran_COMPILER=${CMAKE_Fortran_COMPILER}
    BUILD_COMMAND $(MAKE) collsel differential e2e_programs bench_programs bcast_only selection
                  collsel-calibrate
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON)
  # Installed beside libcollsel.so (the pkg-config variable preload_openmpi names it); it finds the
  # same config and model, relative to itself.
  install(FILES ${COLLSEL_OPENMPI_BUILD_DIR}/pmpi/libcollsel-openmpi.so
          DESTINATION ${CMAKE_INSTALL_LIBDIR})
else()
  message(STATUS "mpicxx.openmpi not found (Debian: libopenmpi-dev): no Open MPI build, the "
                 "Open MPI tests are skipped")
endif()

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
