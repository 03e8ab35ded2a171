# SPDX-License-Identifier: Apache-2.0
# Cross-compiles the C libraries for linux-aarch64 (Grace: GB200 hosts) with
# Debian's gcc-aarch64-linux-gnu. Used by scripts/build-aarch64.sh:
#   cmake -DCMAKE_TOOLCHAIN_FILE=native/cmake/aarch64-linux-gnu.cmake ...
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(MARROW_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${MARROW_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${MARROW_CROSS_TRIPLE}-g++)
# The target's headers and libraries only: never the build host's.
set(CMAKE_FIND_ROOT_PATH /usr/${MARROW_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# No nvcc for the target here: CUDA builds for sm_90/sm_100 happen natively.
set(MARROW_WITH_CUDA OFF CACHE BOOL "" FORCE)
