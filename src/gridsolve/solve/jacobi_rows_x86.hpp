// AVX2 rows of the CPU Jacobi sweep, chosen at run time where the processor has AVX2.
#pragma once

namespace gridsolve {

// Whether this processor runs the AVX2 rows (false off x86-64 or without AVX2).
bool cpu_has_avx2();

// o[i..last] = keep c[i] + c0 + cx (c[i-1] + c[i+1]) + cy (s[i] + n[i]) for the part of
// the range that whole 32-byte vectors cover from the first aligned i on, with streaming
// stores; returns the first index not written (the caller finishes the tail).
int jacobi_row_avx2(double* o, const double* c, const double* s, const double* n, int i, int last,
                    double keep, double c0, double cx, double cy);
int jacobi_row_avx2(float* o, const float* c, const float* s, const float* n, int i, int last,
                    float keep, float c0, float cx, float cy);

}  // namespace gridsolve
