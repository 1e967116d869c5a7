// Fortran's MPI_IN_PLACE and MPI_BOTTOM as a Fortran caller passes them: the addresses of the
// library's sentinel variables, which the C routines do not recognise. Only the flavours whose
// Fortran bindings bypass the C MPI_* symbols (Open MPI: they call PMPI_* directly) need the shim
// to have Fortran entry points (pmpi/fortran_entry.cpp), and only they define these
// (flavour/openmpi.cpp; cmake/mpi_flavour.cmake's COLLSEL_FORTRAN_ENTRIES).
#pragma once

namespace collsel::flavour {

// True when `buffer` is the address of Fortran's MPI_IN_PLACE / MPI_BOTTOM.
bool fortran_in_place(const void* buffer);
bool fortran_bottom(const void* buffer);

}  // namespace collsel::flavour
