# Shared compile settings. Files holding loop bodies (for_each / reduce) are compiled
# as CUDA in a CUDA build so that one source serves both devices.
set(GRIDSOLVE_WARNINGS -Wall -Wextra -Wpedantic -Wshadow)

function(gridsolve_settings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${GRIDSOLVE_WARNINGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda --expt-relaxed-constexpr -Xcompiler=-Wall,-Wextra,-fopenmp>)
  if(GRIDSOLVE_WERROR)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Werror> $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
  if(GRIDSOLVE_BOUNDS_CHECK)
    target_compile_definitions(${target} PUBLIC GRIDSOLVE_BOUNDS_CHECK=1)
  endif()
  if(GRIDSOLVE_CUDA)
    # fmt turns its constexpr off under nvcc, which leaves C++20 constexpr functions
    # calling non-constexpr ones (an error in the host pass); g++ sets it to 1 anyway.
    target_compile_definitions(${target} PUBLIC GRIDSOLVE_HAVE_CUDA=1 FMT_USE_CONSTEXPR=1)
  endif()
endfunction()

# Compile the listed sources as CUDA when the CUDA path is enabled.
function(gridsolve_kernel_sources)
  if(GRIDSOLVE_CUDA)
    # Source properties are scoped to the calling directory, where the targets using
    # these sources are defined; naming directories CMake has not entered yet is an error.
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
  endif()
endfunction()
