#pragma once

#define CAFFE2_VERSION_MAJOR 2

#define CAFFE2_BUILD_STRINGS { \
  {"TORCH_VERSION", "2.8.0"}, \
  {"CUDA_VERSION", "12.9"}, \
  {"CUDNN_VERSION", "9.11.0"}, \
  {"USE_CUDNN", "1"}, \
  {"COMMIT_SHA", ""}, \
}
