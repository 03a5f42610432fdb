#!/bin/sh
# Reproduces the three build errors of docs/05_nested_dynamic.md ("Three errors a student meets"), then builds
# it right.
#   sh 05_nested_dynamic/pitfalls/reproduce.sh
# Errors 1 and 2 need only nvcc and g++; error 3 shows at run time, on an sm_90 GPU (H100, H200).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cuda_lib=$(dirname "$(command -v nvcc)")/../lib64
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

echo "== 1. device-side cudaDeviceSynchronize():  nvcc -rdc=true -arch=sm_90 -c device_sync.cu"
nvcc -rdc=true -arch=sm_90 -c "$here/device_sync.cu" -o device_sync.o

echo "== 2. relocatable device code, no device link:  nvcc -rdc=true -c, then g++"
nvcc -rdc=true -arch=sm_90 -c "$here/tail_launch.cu" -o tail_launch.o
g++ tail_launch.o -o no_device_link -L"$cuda_lib" -lcudart_static -lcudadevrt -ldl -lpthread -lrt

echo "== 3. compiled for sm_90 (H100, H200), device-linked for sm_75 only; runs on an sm_90 GPU"
nvcc -rdc=true -arch=sm_90 -c "$here/tail_launch.cu" -o sm90.o &&
    nvcc -arch=sm_75 sm90.o -o wrong_arch_link && ./wrong_arch_link

echo "== the right way: the same -arch on both lines (nvcc device-links and adds -lcudadevrt itself)"
nvcc -arch=sm_90 sm90.o -o right && ./right
