# The MPI this build's MPI parts (selector/, pmpi/, calibrate/, bench/, flavour/ and the MPI test
# programs) are compiled for. Everything that differs between MPIs at build time is decided here;
# in C++ the differences live in flavour/ (docs/ARCHITECTURE.md, "MPI flavours").
#
#   mpich  the primary build: the shim users preload (libcollsel.so), the tools, the tests
#   openmpi  Open MPI 4.1.4 (Debian's libopenmpi-dev, beside MPICH): libcollsel-openmpi.so, its
#          Fortran entry points, and the MPI test programs; built by the primary build under
#          build/openmpi (cmake/flavour_builds.cmake)
#   smpi   SimGrid's SMPI (docs/SIMULATION.md): libcollsel-smpi.so and the MPI programs, for
#          simulated clusters; built by the primary build under build/smpi (cmake/flavour_builds.cmake)
#
# Provides: the interface target collsel_mpi (headers and library of the MPI), MPICC/MPICXX/MPIF90
# (the compiler wrappers users build with), MPIEXEC (the launcher), COLLSEL_SHIM_NAME (the shim's
# file name), COLLSEL_MPI_PROGRAM_FLAGS (what the wrappers need added to build a program of this
# MPI on a machine whose default MPI may be another), COLLSEL_FORTRAN_ENTRIES (whether the shim needs Fortran entry points of its own),
# collsel_add_mpi_program() and collsel_install_mpi_program().
set(COLLSEL_MPI "mpich" CACHE STRING "The MPI of this build's MPI parts: mpich, openmpi or smpi")
set_property(CACHE COLLSEL_MPI PROPERTY STRINGS mpich openmpi smpi)
set(COLLSEL_FORTRAN_ENTRIES OFF)
set(COLLSEL_MPI_PROGRAM_FLAGS "")

add_library(collsel_mpi INTERFACE)
if(COLLSEL_MPI STREQUAL "mpich")
  pkg_check_modules(MPICH REQUIRED IMPORTED_TARGET mpich)
  target_link_libraries(collsel_mpi INTERFACE PkgConfig::MPICH)
  # The wrappers are used only for the example and test programs, which must be built exactly as a
  # user builds theirs (mpicc/mpif90), not with our flags.
  find_program(MPICC NAMES mpicc.mpich mpicc REQUIRED)
  find_program(MPICXX NAMES mpicxx.mpich mpicxx REQUIRED)
  find_program(MPIF90 NAMES mpif90.mpich mpif90 REQUIRED)
  find_program(MPIEXEC NAMES mpiexec.mpich mpiexec.hydra mpiexec REQUIRED)
  set(COLLSEL_SHIM_NAME collsel)
  set(COLLSEL_MPI_PROGRAMS_ARE_LIBRARIES OFF)
elseif(COLLSEL_MPI STREQUAL "openmpi")
  # Open MPI 4.1.4 installed beside MPICH: its pkg-config file (ompi-c, not the alternatives'
  # mpi.pc, which names the machine's default MPI) and its explicitly suffixed wrappers, never the
  # default mpicc, which may be either MPI. Its handles are pointers (MPICH's are integers), so
  # every MPI part is compiled again against its mpi.h.
  pkg_check_modules(OMPI REQUIRED IMPORTED_TARGET ompi-c)
  target_link_libraries(collsel_mpi INTERFACE PkgConfig::OMPI)
  # Without it, mpi.h drags the deprecated C++ bindings (libmpi_cxx) into every C++ file.
  target_compile_definitions(collsel_mpi INTERFACE OMPI_SKIP_MPICXX=1)
  find_program(MPICC mpicc.openmpi REQUIRED)
  find_program(MPICXX mpicxx.openmpi REQUIRED)
  find_program(MPIF90 mpif90.openmpi REQUIRED)
  find_program(MPIEXEC mpiexec.openmpi REQUIRED)
  set(COLLSEL_SHIM_NAME collsel-openmpi)
  # Debian's mpif90.openmpi links `-lmpi` with no -L to Open MPI's libdir, so with MPICH the
  # machine's default (update-alternatives) a Fortran program gets MPICH's libmpi.so and aborts
  # in its first call; Open MPI's libdir first makes it Open MPI's.
  pkg_get_variable(OMPI_LIBDIR ompi-c libdir)
  set(COLLSEL_MPI_PROGRAM_FLAGS -L${OMPI_LIBDIR})
  set(COLLSEL_MPI_PROGRAMS_ARE_LIBRARIES OFF)
  # Open MPI's Fortran bindings (mpif.h, `use mpi`, `use mpi_f08`) call PMPI_Bcast directly
  # (ompi/mpi/fortran/mpif-h/bcast_f.c), so the C entry points never see a Fortran caller.
  set(COLLSEL_FORTRAN_ENTRIES ON)
elseif(COLLSEL_MPI STREQUAL "smpi")
  # SimGrid 3.32 (Debian's libsimgrid-dev). Its mpi.h is its own ABI (MPI_Comm is a pointer,
  # MPI_IN_PLACE is (void*)-222), so every MPI part is compiled again against it. Our own code
  # takes only SMPI's include directory, not smpicc's -include smpi_helpers.h, whose macros
  # (malloc, exit, getpid...) are for C programs and break C++ standard headers.
  find_path(SMPI_INCLUDE_DIR smpi/mpi.h REQUIRED)
  find_library(SIMGRID_LIBRARY simgrid REQUIRED)
  target_include_directories(collsel_mpi INTERFACE ${SMPI_INCLUDE_DIR}/smpi)
  target_link_libraries(collsel_mpi INTERFACE ${SIMGRID_LIBRARY})
  find_program(MPICC smpicc REQUIRED)
  find_program(MPICXX smpicxx REQUIRED)
  find_program(MPIF90 smpif90)
  find_program(MPIEXEC smpirun REQUIRED)
  set(COLLSEL_SHIM_NAME collsel-smpi)
  # smpirun loads a program as a shared object (one copy per simulated rank: SMPI's dlopen
  # privatization), so an MPI program of ours is a shared library with a main().
  set(COLLSEL_MPI_PROGRAMS_ARE_LIBRARIES ON)
else()
  message(FATAL_ERROR "COLLSEL_MPI=${COLLSEL_MPI}: use mpich, openmpi or smpi")
endif()
# Whether this is the build users install and the tests run (the others are built from it).
if(COLLSEL_MPI STREQUAL "mpich")
  set(COLLSEL_PRIMARY_BUILD ON)
else()
  set(COLLSEL_PRIMARY_BUILD OFF)
endif()

# An MPI program of ours (benchmark, calibration, test program), linked with its libraries.
function(collsel_add_mpi_program target)
  if(COLLSEL_MPI_PROGRAMS_ARE_LIBRARIES)
    add_library(${target} SHARED ${ARGN})
    # The file is named like the program (no lib prefix, no .so), as smpirun users expect.
    set_target_properties(${target} PROPERTIES PREFIX "" SUFFIX "")
  else()
    add_executable(${target} ${ARGN})
  endif()
endfunction()

function(collsel_install_mpi_program target)
  if(COLLSEL_PRIMARY_BUILD)
    install(TARGETS ${target} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endfunction()
