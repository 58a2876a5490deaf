// The library's array algorithms for the Python module: batched tridiagonal solves and the
// sorting networks on arrays where they live. Host arrays run on the CPU, or are copied to
// a GPU and back; arrays in a GPU's memory (CuPy, PyTorch: `where` cuda) run there in place,
// no copy made.
#pragma once
#include <cstddef>
#include <string>

#include "gridsolve/exec/device.hpp"

namespace gridsolve {

// Solves `count` systems of `n` rows (a, b, c the sub-, main and super-diagonals, d the
// right-hand sides, one system after another) in place in d.
template <class T>
void tridiag_arrays(const T* a, const T* b, const T* c, T* d, int n, int count, Device where,
                    const std::string& method, const std::string& device);

// Sorts `count` arrays of `length` keys each in place (count 1: one array).
template <class K>
void sort_arrays(K* keys, std::size_t count, std::size_t length, Device where,
                 const std::string& network, const std::string& order, const std::string& device);

}  // namespace gridsolve
