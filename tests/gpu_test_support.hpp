// For the GPU tests: each one skips itself, with the reason, where no usable GPU is.
#pragma once
#include <gtest/gtest.h>

#include "gridsolve/exec/device.hpp"

#define SKIP_WITHOUT_GPU()                                                  \
  do {                                                                      \
    if (!::gridsolve::cuda_available())                                     \
      GTEST_SKIP() << "no GPU: " << ::gridsolve::cuda_unavailable_reason(); \
  } while (0)
