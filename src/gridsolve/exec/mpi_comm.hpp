// The run's MPI communicator as MPI's C type, for the files that call MPI or a library over
// it (HYPRE, parallel HDF5): MPI_COMM_WORLD, or the caller's communicator the run adopted
// (Communicator::adopt). Included only where mpi.h is (GRIDSOLVE_HAVE_MPI).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <type_traits>

#include "gridsolve/exec/communicator.hpp"

namespace gridsolve {

// MPI_Comm is a pointer in Open MPI and an int in MPICH: both travel as an integer (what
// mpi4py's MPI._handleof gives). Templates, so that only the branch of this MPI compiles.
template <class Comm = MPI_Comm>
Comm mpi_comm_of_handle(std::uintptr_t handle) {
  if constexpr (std::is_pointer_v<Comm>)
    return reinterpret_cast<Comm>(handle);
  else
    return static_cast<Comm>(handle);
}

template <class Comm = MPI_Comm>
std::uintptr_t handle_of_mpi_comm(Comm comm) {
  if constexpr (std::is_pointer_v<Comm>)
    return reinterpret_cast<std::uintptr_t>(comm);
  else
    return static_cast<std::uintptr_t>(comm);
}

inline MPI_Comm run_mpi_comm() {
  const std::uintptr_t handle = Communicator::world().mpi_handle();
  return handle == 0 ? MPI_COMM_WORLD : mpi_comm_of_handle(handle);
}

}  // namespace gridsolve
